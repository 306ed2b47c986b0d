# Sourced by the scripts that plan the bundled examples (examples.sh, check-placements.sh; the chaos harness makes
# its own identity in its workspace). Database VMs with clients derive their TLS and passwords from the operator's
# age identity (docs/connectivity.md, "Secrets"), so `plan` refuses without one. When the operator has none
# configured, these scripts use a throwaway identity made for the run: what they plan is never applied.
if [ -z "${MCLOUD_AGE_KEY_FILE:-}${SOPS_AGE_KEY_FILE:-}" ] && [ ! -e "$HOME/.config/mcloud/age.key" ]; then
  MCLOUD_AGE_KEY_FILE=$(mktemp -d)/age.key
  export MCLOUD_AGE_KEY_FILE
  age-keygen -o "$MCLOUD_AGE_KEY_FILE" 2>/dev/null
fi
