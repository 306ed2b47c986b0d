# Sourced by the other scripts: puts the Swift toolchain first on PATH.
# Debian's python3-swiftclient installs an OpenStack client also called `swift`, which would
# otherwise shadow the compiler driver. Looks in SWIFT_TOOLCHAIN_BIN, then the folders of SWIFT_TOOLCHAIN_DIRS (default:
# /opt/swift/usr/bin /usr/share/swift/usr/bin), then beside the swiftc on PATH.
toolchain_broken=""
for candidate in "${SWIFT_TOOLCHAIN_BIN:-}" ${SWIFT_TOOLCHAIN_DIRS:-/opt/swift/usr/bin /usr/share/swift/usr/bin} "$(dirname "$(command -v swiftc 2>/dev/null || echo /nonexistent/swiftc)")"; do
  [ -n "$candidate" ] && [ -x "$candidate/swift" ] && [ -x "$candidate/swiftc" ] || continue
  # A toolchain whose binaries cannot start (a shared library missing on a minimal system) is reported with the
  # loader's own words rather than taken for no toolchain at all.
  if toolchain_output=$("$candidate/swift" --version 2>&1) && grep -q "Swift version" <<<"$toolchain_output"; then
    export PATH="$candidate:$PATH"
    toolchain_broken=""
    break
  fi
  toolchain_broken+="  $candidate/swift --version: $(head -n 3 <<<"$toolchain_output")"$'\n'
done
if ! swift --version 2>/dev/null | grep -q "Swift version"; then
  if [ -n "$toolchain_broken" ]; then
    echo "error: found a Swift toolchain, but it cannot start:" >&2
    printf '%s' "$toolchain_broken" >&2
    echo "install the shared libraries it names (Debian 12: the packages swift.org lists, such as libncurses6), or set SWIFT_TOOLCHAIN_BIN to another toolchain's bin folder" >&2
  else
    echo "error: no Swift toolchain found in ${SWIFT_TOOLCHAIN_BIN:+$SWIFT_TOOLCHAIN_BIN, }${SWIFT_TOOLCHAIN_DIRS:-/opt/swift/usr/bin /usr/share/swift/usr/bin} or on PATH; install one or set SWIFT_TOOLCHAIN_BIN to its bin folder" >&2
  fi
  exit 1
fi
unset toolchain_broken toolchain_output
