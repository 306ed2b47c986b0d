# Sourced by scripts/install-deps.sh and, through testbed/common.sh, by every test bed: the one way the scripts
# install Debian packages. Each script names the packages it needs; only the missing ones are installed, without
# recommends, as root or through sudo, waiting up to 10 minutes for another apt-get to finish.

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else echo "${ME:-mcloud}: error: installing packages needs root (or sudo): $*" >&2; return 1
  fi
}

APT_UPDATED=0
apt_update() {
  echo "${ME:-mcloud}: apt-get update" >&2
  as_root apt-get -o DPkg::Lock::Timeout=600 update -qq || { echo "${ME:-mcloud}: error: apt-get update failed" >&2; return 1; }
  APT_UPDATED=1
}

# missing_packages NAME...: prints those not installed, one a line.
missing_packages() {
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
  done
}

# ensure_packages NAME...: installs the Debian packages that are not installed yet.
ensure_packages() {
  local missing=()
  mapfile -t missing < <(missing_packages "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$APT_UPDATED" -eq 1 ] || apt_update || return 1
  echo "${ME:-mcloud}: apt-get install ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >&2 || { echo "${ME:-mcloud}: error: apt-get install ${missing[*]} failed" >&2; return 1; }
}
