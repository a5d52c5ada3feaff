#!/bin/sh
# Installs everything tilecam needs on Debian (system packages as root, then a virtualenv in
# .venv).  Safe to run again: it only installs what is missing.
set -e
cd "$(dirname "$0")"

# The fonts-* packages after fonts-dejavu-core are the typefaces the stock letter classifier
# learns from (calibration/fonts.py).  postgresql: the database of a club's server (`--db
# postgresql://...`); the tests start a throwaway cluster of their own with its initdb.
APT_PACKAGES="tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu chromium libgl1 libglib2.0-0 fonts-dejavu-core python3-venv fontconfig fonts-liberation fonts-urw-base35 fonts-freefont-ttf fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-cabin fonts-beteckna fonts-play fonts-b612 postgresql"
missing=""
for pkg in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = "0" ]; then
        echo "setup: installing system packages:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "setup: please install these Debian packages first (as root):$missing" >&2
        exit 1
    fi
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.tilecam-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    # constraints.txt: the versions of the numerical libraries the figures were measured with.
    .venv/bin/python -m pip install -q -c constraints.txt -e '.[test]'
    touch "$stamp"
fi

# The letters of printed typefaces, learnt once per machine (about 20 s; nothing to do when
# they are there already).
.venv/bin/tilecam learn-fonts
