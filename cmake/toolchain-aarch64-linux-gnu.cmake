# Cross build for aarch64 (Grace Hopper / Grace Blackwell nodes) on Debian x86-64:
#   dpkg --add-architecture arm64; apt-get install g++-aarch64-linux-gnu qemu-user-static \
#     libre2-dev:arm64 libvectorscan-dev:arm64 libhwloc-dev:arm64 libboost-program-options-dev:arm64
#   cmake -S . -B build-portable-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake \
#     -DFF_PORTABLE=ON -DFF_SIMDJSON_SOURCE=...
# Header-only dependencies (nlohmann/json, Boost headers, spdlog, fmt, Catch2) are the same
# files for both architectures: the x86-64 packages' /usr/include serves. Programs the build
# runs (the prefilter generator) and tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config reads the arm64 packages' .pc files (libdir /usr/lib/aarch64-linux-gnu).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
find_program(FF_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(FF_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FF_QEMU_AARCH64})
endif()
