#!/bin/sh
# What the machine needs besides npm packages: `npm start` runs it for java (DynamoDB Local),
# `npm test` and .ci/run for java and chromium (the console's browser tests). Whatever is missing
# is installed with apt-get on Debian/Ubuntu, as root or with passwordless sudo; anywhere else it
# stops at once, naming the one command to run. Usage: prerequisites.sh java [chromium]
set -eu

chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"

java_present() {
  command -v java >/dev/null 2>&1 || return 1
  # `openjdk version "17.0.9"`, or `"1.8.0_292"` for Java 8.
  major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  [ -n "$major" ] && [ "$major" -ge 17 ]
}

present() {
  case "$1" in
    java) java_present ;;
    chromium) [ -x "$chromium_path" ] ;;
    *) echo "prerequisites.sh: unknown prerequisite $1" >&2; exit 2 ;;
  esac
}

debian_package() {
  case "$1" in
    java) echo openjdk-17-jre-headless ;;
    chromium) echo chromium ;;
  esac
}

what() {
  case "$1" in
    java) echo 'Java 17+ (DynamoDB Local runs on it)' ;;
    chromium) echo "Chromium at $chromium_path (the console's browser tests drive it; CHROMIUM_PATH moves it)" ;;
  esac
}

stop() {
  echo "missing: $1" >&2
  echo "run: $2" >&2
  exit 1
}

missing=""
packages=""
needs=""
for tool in "$@"; do
  if ! present "$tool"; then
    missing="$missing $tool"
    packages="$packages $(debian_package "$tool")"
    needs="${needs:+$needs; }$(what "$tool")"
  fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  if [ "$(uname -s)" = Darwin ]; then
    case "$missing" in
      *java*) stop "$needs" 'brew install openjdk@17' ;;
      *) stop "$needs" 'brew install --cask chromium, then set CHROMIUM_PATH to its binary' ;;
    esac
  fi
  stop "$needs" "install$missing with your system's package manager (Debian/Ubuntu: sudo apt-get install -y$packages)"
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root="sudo"
else
  stop "$needs" "sudo apt-get install -y$packages"
fi

echo "installing$packages for$missing" >&2
# shellcheck disable=SC2086 # the package list is meant to split
$as_root apt-get update -qq
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages

for tool in $missing; do
  present "$tool" || stop "$(what "$tool") is still missing after apt-get install" "sudo apt-get install -y $(debian_package "$tool")"
done
