// npm run package: copies the server binary and the catalog into the extension, bundles
// the code and runs vsce, producing firstfault-<version>.vsix.
//   FIRSTFAULT_BIN=/path/to/firstfault npm run package   (default: ../build/bin/firstfault)
// A platform package (tools/release.sh): FIRSTFAULT_TARGET=linux-arm64 (default linux-x64)
// puts the binary in bin/<target>/ and marks the .vsix for that platform;
// FIRSTFAULT_VSIX=path names the output.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { fileURLToPath } from "url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(root, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const bin = path.resolve(process.env.FIRSTFAULT_BIN || path.join(repo, "build", "bin", "firstfault"));
// VS Code platform -> the ELF e_machine its binary must have (bin/<target>/ is what
// bundledServerPath() looks for: process.platform-process.arch).
const targets = { "linux-x64": { machine: 62, name: "x86-64" }, "linux-arm64": { machine: 183, name: "aarch64" } };
const target = process.env.FIRSTFAULT_TARGET || "linux-x64";

function fail(msg) {
  console.error(`package: ${msg}`);
  process.exit(1);
}
if (!fs.existsSync(bin))
  fail(`the server binary ${bin} is missing.\n  Build it first:  cmake -S .. -B ../build && cmake --build ../build --target firstfault -j2\n  or point FIRSTFAULT_BIN at one.`);
try {
  fs.accessSync(bin, fs.constants.X_OK);
} catch {
  fail(`${bin} is not executable`);
}
const head = fs.readFileSync(bin).subarray(0, 20);
if (!targets[target]) fail(`unknown FIRSTFAULT_TARGET ${target} (one of ${Object.keys(targets).join(", ")})`);
if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head.readUInt16LE(18) !== targets[target].machine)
  fail(`${bin} is not a Linux ${targets[target].name} ELF executable`);

const dest = path.join(root, "bin", target);
fs.rmSync(path.join(root, "bin"), { recursive: true, force: true });
fs.mkdirSync(dest, { recursive: true });
fs.copyFileSync(bin, path.join(dest, "firstfault"));
fs.chmodSync(path.join(dest, "firstfault"), 0o755);
try {
  // Debug symbols are not needed in the extension: strip the copy when strip is available
  // (the cross toolchain's strip for an aarch64 binary).
  const strip = target === "linux-arm64" ? "aarch64-linux-gnu-strip" : "strip";
  execFileSync(strip, ["--strip-unneeded", path.join(dest, "firstfault")], { stdio: "ignore" });
} catch {
  /* no strip: ship it as it is */
}
console.log(`package: copied ${bin} -> bin/${target}/firstfault`);

const docs = path.join(root, "docs");
fs.rmSync(docs, { recursive: true, force: true });
fs.mkdirSync(docs, { recursive: true });
for (const f of ["catalog.md"]) {
  const src = path.join(repo, "docs", f);
  if (fs.existsSync(src)) fs.copyFileSync(src, path.join(docs, f));
  else console.warn(`package: warning: ${src} not found; Open Error Catalog will fall back to the workspace`);
}

// The README shown inside VS Code: the repository's screenshot shipped beside it.
const shot = path.join(repo, "docs", "images", "firstfault-vscode.png");
let readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
if (fs.existsSync(shot)) {
  fs.mkdirSync(path.join(docs, "images"), { recursive: true });
  fs.copyFileSync(shot, path.join(docs, "images", "firstfault-vscode.png"));
  readme = readme.split("../docs/images/").join("docs/images/");
} else {
  readme = readme.replace(/^!\[[^\]]*\]\(\.\.\/docs\/images\/[^)]*\)\s*$/gm, "");
}
fs.mkdirSync(path.join(root, "dist"), { recursive: true });
fs.writeFileSync(path.join(root, "dist", "README.md"), readme);

const run = (cmd, args) => {
  try {
    execFileSync(cmd, args, { cwd: root, stdio: "inherit" });
  } catch (e) {
    fail(`${path.basename(args[0] ?? cmd)} failed (exit ${e.status ?? e.signal})`);
  }
};
if (!fs.existsSync(path.join(root, "media", "icon.png"))) run(process.execPath, ["scripts/make-icon.mjs", "media/icon.png"]);
run(process.execPath, ["scripts/build.mjs", "--production"]);
const out = process.env.FIRSTFAULT_VSIX ? path.resolve(process.env.FIRSTFAULT_VSIX) : `firstfault-${pkg.version}.vsix`;
run(process.execPath, [path.join(root, "node_modules", "@vscode", "vsce", "vsce"), "package", "--no-dependencies", "--allow-missing-repository", "--no-rewrite-relative-links", "--readme-path", "dist/README.md", "--target", target, "-o", out]);
console.log(`package: wrote ${path.resolve(root, out)}`);
