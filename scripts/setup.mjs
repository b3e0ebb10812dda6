#!/usr/bin/env node
// Installs what the stack needs and is missing; does nothing when all is there (npm prestart/pretest).
// Plain JavaScript on purpose: it runs before any npm package is installed.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Debian packages and a command each one provides, to tell whether it is installed. */
const SYSTEM_PACKAGES = [
  // Reference renderers and page counts for the tests and benchmarks.
  { pkg: "poppler-utils", provides: "pdfinfo" },
  { pkg: "mupdf-tools", provides: "mutool" },
  // Tests compare ZIP parts with what unzip takes out.
  { pkg: "unzip", provides: "unzip" },
  // Real browser for the UI tests (driven by playwright-core).
  { pkg: "chromium", provides: "chromium" },
  // Fonts for text measurement and for pages whose fonts are not embedded.
  { pkg: "fonts-dejavu-core", file: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" },
  { pkg: "fonts-liberation2", file: "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf" },
  // LibreOffice without a GUI for the office conversion pool (src/services/broker/conversion/OfficeConverter.ts),
  // driven over UNO by the Debian Python (/usr/bin/python3 with python3-uno).
  { pkg: "libreoffice-writer-nogui", file: "/usr/lib/libreoffice/program/libswlo.so" },
  { pkg: "libreoffice-calc-nogui", file: "/usr/lib/libreoffice/program/libscfiltlo.so" },
  { pkg: "libreoffice-impress-nogui", file: "/usr/lib/libreoffice/program/libslideshowlo.so" },
  { pkg: "libreoffice-draw-nogui", file: "/usr/lib/libreoffice/program/libsdlo.so" },
  { pkg: "python3-uno", file: "/usr/lib/python3/dist-packages/uno.py" },
  // CJK glyphs for office files and text converted by LibreOffice.
  { pkg: "fonts-noto-cjk", file: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc" }
]

const log = (message) => console.log(`[setup] ${message}`)

const hasCommand = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0

function installNodeModules() {
  const marker = join(root, "node_modules", ".package-lock.json")
  const lock = join(root, "package-lock.json")
  const current = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs &&
    existsSync(join(root, "node_modules", "effect"))
  if (current) return
  // npm install, not npm ci: ci refuses a lock file that lacks other platforms' optional packages
  // (as npm on this machine writes it), while install keeps the locked versions all the same.
  log("installing npm packages (npm install)")
  execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" })
}

function installSystemPackages() {
  const missing = SYSTEM_PACKAGES.filter(({ provides, file }) => (provides ? !hasCommand(provides) : !existsSync(file)))
  if (missing.length === 0) return
  const names = missing.map((m) => m.pkg)
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0
  if (!isRoot || !hasCommand("apt-get")) {
    log(
      `missing system packages: ${
        names.join(" ")
      }; install them with your package manager (not root, or no apt-get here)`
    )
    return
  }
  log(`installing system packages: ${names.join(" ")}`)
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  // Another apt (unattended upgrades, a second setup) may hold the lock: wait for it, then say so plainly.
  const wait = ["-o", "DPkg::Lock::Timeout=600"]
  try {
    execFileSync("apt-get", [...wait, "update", "-qq"], { stdio: "inherit", env })
    execFileSync("apt-get", [...wait, "install", "-y", "-qq", "--no-install-recommends", ...names], {
      stdio: "inherit",
      env
    })
  } catch (error) {
    console.error(
      `[setup] could not install ${names.join(" ")} with apt-get (${
        error.message.split("\n")[0]
      }); install them yourself, or run npm start again once apt is free`
    )
    process.exit(1)
  }
}

const engines = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines?.node ?? ""
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`[setup] Node ${process.versions.node} is too old: this project needs ${engines}`)
  process.exit(1)
}

installSystemPackages()
installNodeModules()

// The browser viewer's bundle (web/dist/), built from web/ when its sources changed.
const { buildWeb } = await import("./build-web.mjs")
const built = await buildWeb()
if (built.length > 0) log(`built ${built.join(", ")}`)
