#!/usr/bin/env bash
# Installs the Debian packages Decoda builds and tests with; idempotent and quiet when all is there.
set -euo pipefail

PKGS=(
  cmake ninja-build ccache g++ git
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libomp-22-dev
  libgtest-dev googletest
  python3-numpy
  zlib1g-dev
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
