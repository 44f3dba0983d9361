#!/bin/sh
# Installs Partner Desk for the current user: the app under ~/.local/share/partner-desk, the
# command in ~/.local/bin, the menu entry and its icon. Run from the unpacked archive.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
target="$data/partner-desk"
rm -rf "$target"
mkdir -p "$target" "$HOME/.local/bin" "$data/applications" "$data/icons/hicolor/256x256/apps" "$data/metainfo"
cp -R "$here/partner-desk/." "$target/"
ln -sf "$target/partner-desk" "$HOME/.local/bin/partner-desk"
sed "s|@EXEC@|$target/partner-desk|" "$here/partner-desk.desktop" > "$data/applications/partner-desk.desktop"
cp "$here/partner-desk-256.png" "$data/icons/hicolor/256x256/apps/partner-desk.png"
cp "$here/com.partnerdesk.PartnerDesk.metainfo.xml" "$data/metainfo/"
echo "Partner Desk is installed: start it from the menu, or run partner-desk"
