#!/usr/bin/env bash
# Install LibreOffice Calc 25.x (headless) from bookworm-backports, plus pdftoppm and fonts,
# for the LibreOffice cross-check tests (tests/libreoffice.py).  Debian 12 (bookworm), run as root.
# Idempotent: exits at once when `soffice --version` already reports 25.x.
# The backports suite is enabled by adding it to the Suites line of the machine's existing
# apt source entry (no new repository URL is written anywhere).
set -euo pipefail

SOURCES=/etc/apt/sources.list.d/debian.sources
PACKAGES=(libreoffice-calc-nogui poppler-utils fonts-dejavu-core fonts-liberation2)

if command -v soffice >/dev/null 2>&1 && soffice --version 2>/dev/null | grep -q 'LibreOffice 25\.'; then
    echo "install-libreoffice: $(soffice --version 2>/dev/null | head -n1) already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if ! grep -Eq '^Suites:.*[[:space:]]bookworm-backports([[:space:]]|$)' "$SOURCES" 2>/dev/null; then
    if ! grep -Eq '^Suites:[[:space:]]*bookworm[[:space:]]+bookworm-updates' "$SOURCES" 2>/dev/null; then
        echo "install-libreoffice: no 'Suites: bookworm bookworm-updates' stanza in $SOURCES" >&2
        exit 1
    fi
    $SUDO sed -i -E \
        '/^Suites:[[:space:]]*bookworm[[:space:]]+bookworm-updates/{/bookworm-backports/!s/[[:space:]]*$/ bookworm-backports/}' \
        "$SOURCES"
    echo "install-libreoffice: enabled bookworm-backports in $SOURCES"
fi

$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports \
    --no-install-recommends "${PACKAGES[@]}" >/dev/null

version="$(soffice --version 2>/dev/null | head -n1)"
echo "install-libreoffice: $version"
case "$version" in
    *"LibreOffice 25."*) ;;
    *) echo "install-libreoffice: expected LibreOffice 25.x, got: $version" >&2; exit 1 ;;
esac
