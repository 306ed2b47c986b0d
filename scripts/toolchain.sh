# Sourced by the other scripts: puts the Swift toolchain first on PATH.
# Debian's python3-swiftclient installs an OpenStack client also called `swift`, which would
# otherwise shadow the compiler driver.
for candidate in "${SWIFT_TOOLCHAIN_BIN:-}" /opt/swift/usr/bin /usr/share/swift/usr/bin "$(dirname "$(command -v swiftc 2>/dev/null || echo /nonexistent/swiftc)")"; do
  if [ -n "$candidate" ] && [ -x "$candidate/swift" ] && [ -x "$candidate/swiftc" ]; then
    export PATH="$candidate:$PATH"
    break
  fi
done
if ! swift --version 2>/dev/null | grep -q "Swift version"; then
  echo "error: no Swift toolchain found; install one or set SWIFT_TOOLCHAIN_BIN to its bin folder" >&2
  exit 1
fi
