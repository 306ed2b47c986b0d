#!/usr/bin/env bash
# Installs the Debian packages mcloud builds against (libyaml, libcurl, OpenSSL and libpq headers, pkg-config) and
# Graphviz, which draws `mcloud graph --format svg|html`.
set -euo pipefail
packages=(libyaml-dev libcurl4-openssl-dev libssl-dev libpq-dev pkg-config graphviz)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
