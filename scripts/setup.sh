#!/usr/bin/env bash
# Installs the Debian packages Decoda builds and tests with, and ONNX Runtime (npm) for the ONNX
# tests; idempotent and quiet when all is there.
set -euo pipefail

PKGS=(
  cmake ninja-build ccache g++ git
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libomp-22-dev
  libgtest-dev googletest
  python3-numpy
  zlib1g-dev
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx libonnx-testdata
  nodejs
  clang-22 libclang-rt-22-dev libfuzzer-22-dev
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm: bundled with NodeSource's nodejs, a separate package with Debian's.
if ! command -v npm >/dev/null; then
  echo "setup: installing npm"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi

# ONNX Runtime (CPU), the oracle of the ONNX tests: npm onnxruntime-node, pinned by
# tools/ort/package-lock.json. Reinstalled only when the lock file changes. Its install script
# would download GPU binaries; the CPU binaries come in the package itself.
ort=tools/ort
stamp=$ort/node_modules/.decoda-lock-sha256
want=$(sha256sum "$ort/package-lock.json" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] ||
   [ ! -d "$ort/node_modules/onnxruntime-node" ]; then
  echo "setup: installing onnxruntime-node into $ort/node_modules"
  (cd "$ort" && ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
     npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" >"$stamp"
fi
