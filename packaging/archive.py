"""After the build: the Linux archive partner-desk-VERSION-linux-x86_64.tar.gz in dist/, with
the app, the install script, the menu entry, the AppStream metainfo and the icon."""

from __future__ import annotations

import platform
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from app.core.resources import version

    if sys.platform != "linux":
        print("the archive is made on Linux; the one-folder build is in dist/partner-desk")
        return 0
    release = version()
    built = ROOT / "dist" / "partner-desk"
    name = f"partner-desk-{release}-linux-{platform.machine()}"
    archive = ROOT / "dist" / f"{name}.tar.gz"
    linux = ROOT / "packaging" / "linux"
    metainfo = (linux / "com.partnerdesk.PartnerDesk.metainfo.xml").read_text(encoding="utf-8")
    staged = ROOT / "build" / "com.partnerdesk.PartnerDesk.metainfo.xml"
    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_text(metainfo.replace("@VERSION@", release), encoding="utf-8")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(built, arcname=f"{name}/partner-desk")
        tar.add(linux / "install.sh", arcname=f"{name}/install.sh")
        tar.add(linux / "partner-desk.desktop", arcname=f"{name}/partner-desk.desktop")
        tar.add(staged, arcname=f"{name}/{staged.name}")
        tar.add(
            ROOT / "resources" / "icons" / "partner-desk-256.png",
            arcname=f"{name}/partner-desk-256.png",
        )
    print(f"{archive.relative_to(ROOT)} ({archive.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
