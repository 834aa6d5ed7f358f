#!/usr/bin/env bash
#===-- utils/setup.sh - Install what clang-maxcode needs ------------------===#
#
# Installs the Debian 12 packages the build and the tests need, only those
# missing: when everything is there it does nothing (and needs no network).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ python3
  clang-22 libclang-22-dev libclang-cpp22-dev llvm-22-dev llvm-22-tools
  clang-tools-22 libclang-rt-22-dev clang-format-22 clang-tidy-22
  nlohmann-json3-dev libcurl4-openssl-dev libsqlite3-dev
  curl procps
  libgtest-dev libgmock-dev
  valgrind bubblewrap
  python3-yaml
  neovim
  slurm-wlm munge
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    SUDO=sudo
  else
    echo "setup: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
