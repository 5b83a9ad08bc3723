#!/bin/bash
# tools/fetch_simdjson.sh DIR: puts simdjson's single-file source (simdjson.cpp, simdjson.h)
# from Debian's own source package, the version of the installed libsimdjson-dev, into
# DIR/simdjson-<version>/singleheader and prints that directory. The portable build
# (FF_PORTABLE) compiles it: Debian ships simdjson only as a shared library.
# apt fetches and verifies the source package (signed Release -> Sources -> .dsc hashes)
# with a private deb-src list: the machine's apt configuration is left alone.
set -euo pipefail
dest=${1:?usage: tools/fetch_simdjson.sh DIR}
version=$(dpkg-query -W -f '${Version}' libsimdjson-dev 2>/dev/null || true)
[ -n "$version" ] || { echo "fetch_simdjson.sh: libsimdjson-dev is not installed" >&2; exit 1; }
upstream=${version%-*}
upstream=${upstream#*:}
out="$dest/simdjson-$upstream/singleheader"
if [ -f "$out/simdjson.cpp" ] && [ -f "$out/simdjson.h" ]; then echo "$out"; exit 0; fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
apt_dir="$dest/apt"
mkdir -p "$apt_dir/lists/partial"
. /etc/os-release
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} main" \
  > "$apt_dir/sources.list"
opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$apt_dir/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
      -o APT::Sandbox::User=root -qq)
apt-get "${opts[@]}" update >&2
(cd "$dest" && apt-get "${opts[@]}" source --download-only "simdjson=$version" >&2)
tar -C "$dest" -xzf "$dest/simdjson_${upstream}.orig.tar.gz" \
  "simdjson-$upstream/singleheader/simdjson.cpp" "simdjson-$upstream/singleheader/simdjson.h" \
  "simdjson-$upstream/LICENSE"
# Debian applies no patch to this version; refuse to build silently different code if it does.
if tar -tJf "$dest/simdjson_${version#*:}.debian.tar.xz" | grep -q '^debian/patches/series$'; then
  echo "fetch_simdjson.sh: Debian patches simdjson $version; apply debian/patches first" >&2
  exit 1
fi
# The header must be the one the normal build compiles against.
cmp -s "$out/simdjson.h" /usr/include/simdjson.h ||
  { echo "fetch_simdjson.sh: $out/simdjson.h differs from /usr/include/simdjson.h" >&2; exit 1; }
echo "$out"
