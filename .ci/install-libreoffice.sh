#!/usr/bin/env bash
# Install LibreOffice Calc 25.x (headless) from bookworm-backports, plus pdftoppm and fonts,
# for the LibreOffice cross-check tests (tests/libreoffice.py), and python3-uno of exactly the
# installed LibreOffice's version for the rooflinexl Calc add-in (rooflinexl/libreoffice/).
# Debian 12 (bookworm), run as root.
# Idempotent: installs only what is missing; exits at once when LibreOffice 25.x and a matching
# python3-uno are already installed.
# The backports suite is enabled by adding it to the Suites line of the machine's existing
# apt source entry (no new repository URL is written anywhere).
# --no-install-recommends everywhere: otherwise apt pulls ~230 packages (the desktop suite) and
# removes libreoffice-core-nogui. The add-in's type library is committed (built by
# `rooflinexl build`), so the SDK (libreoffice-dev, unoidl-write) is never needed here.
set -euo pipefail

SOURCES=/etc/apt/sources.list.d/debian.sources
PACKAGES=(libreoffice-calc-nogui poppler-utils fonts-dejavu-core fonts-liberation2)

lo_version() { dpkg-query -W -f='${Version}' libreoffice-core-nogui 2>/dev/null || true; }
have_lo() { command -v soffice >/dev/null 2>&1 && soffice --version 2>/dev/null | grep -q 'LibreOffice 25\.'; }
have_uno() {
    local v
    v="$(lo_version)"
    [ -n "$v" ] && [ "$(dpkg-query -W -f='${Version}' python3-uno 2>/dev/null || true)" = "$v" ]
}

if have_lo && have_uno; then
    echo "install-libreoffice: $(soffice --version 2>/dev/null | head -n1) and python3-uno" \
         "$(lo_version) already installed"
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
if ! have_lo; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports \
        --no-install-recommends "${PACKAGES[@]}" >/dev/null
fi

version="$(soffice --version 2>/dev/null | head -n1)"
echo "install-libreoffice: $version"
case "$version" in
    *"LibreOffice 25."*) ;;
    *) echo "install-libreoffice: expected LibreOffice 25.x, got: $version" >&2; exit 1 ;;
esac

# the Python bridge of exactly the installed LibreOffice (a different version does not load)
if ! have_uno; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports \
        --no-install-recommends "python3-uno=$(lo_version)" >/dev/null
fi
echo "install-libreoffice: python3-uno $(dpkg-query -W -f='${Version}' python3-uno)"
