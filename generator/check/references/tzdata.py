"""Writes data/checks/references/tzdata-standard-offsets.json: every zone name of Debian's tzdata
package with its standard UTC offset, the reference of the `timeZones` data check.

Usage (from the repository root):
    apt-get download tzdata                      # or a pinned version: tzdata=2026f-0+deb12u1
    python3 generator/check/references/tzdata.py --deb tzdata_2026f-0+deb12u1_all.deb
    python3 generator/check/references/tzdata.py  # the tzdata package installed on this machine

The TZif files are Debian's build of the IANA tz database (zic, main data form, with backzone);
CPython's zoneinfo reads them. The importer reads a different build of the same database
(moment-timezone's packed data) with different code, so agreement between the two is evidence.

The standard offset is defined as in generator/import/countries/standardOffsets.ts: the smallest UTC offset
in force at any time of the reference year (UTC), the first whole year after the tzdata release
(2027 for 2026f). Here it is sampled at every hour of that year; no offset is in force for less
than an hour. Daylight saving time is thereby never negative, as in
tzdata's rearguard form, CLDR and ICU: Europe/Dublin is +00:00 (GMT), not the +01:00 (IST) that
the main form calls standard time with a negative DST in winter.
"""

import argparse
import gzip
import json
import subprocess
import tempfile
import zoneinfo
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path("data/checks/references/tzdata-standard-offsets.json")


def zone_names(zoneinfo_dir: Path) -> tuple[str, list[str], dict[str, str]]:
    """tzdata.zi: its release (`# version 2026f`), the zones (`Z` lines) and links (`L target name`)."""
    release = ""
    zones: list[str] = []
    links: dict[str, str] = {}
    for line in (zoneinfo_dir / "tzdata.zi").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if line.startswith("# version "):
            release = fields[2]
        elif fields[:1] == ["Z"]:
            zones.append(fields[1])
        elif fields[:1] == ["L"]:
            links[fields[2]] = fields[1]
    if not release or not zones:
        raise SystemExit(f"{zoneinfo_dir}/tzdata.zi names no release or no zone")
    return release, zones, links


def standard_offset(zone: zoneinfo.ZoneInfo, year: int) -> str:
    start = datetime(year, 1, 1, tzinfo=timezone.utc)
    hours = (datetime(year + 1, 1, 1, tzinfo=timezone.utc) - start) // timedelta(hours=1)
    smallest = min((start + timedelta(hours=hour)).astimezone(zone).utcoffset() for hour in range(hours))
    minutes = int(smallest.total_seconds()) // 60
    if minutes * 60 != int(smallest.total_seconds()):
        raise SystemExit(f"{zone.key}: offset {smallest} is not a whole number of minutes")
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def package_date(doc_dir: Path) -> str:
    """The date of the package's newest changelog entry (` -- Name <mail>  Thu, 29 Oct 2026 …`)."""
    with gzip.open(doc_dir / "changelog.Debian.gz", "rt", encoding="utf-8") as changelog:
        for line in changelog:
            if line.startswith(" -- "):
                stamp = line.split(">", 1)[1].strip()
                return datetime.strptime(stamp, "%a, %d %b %Y %H:%M:%S %z").date().isoformat()
    raise SystemExit("changelog.Debian.gz has no trailer line")


def write_snapshot(root: Path, package_version: str) -> None:
    zoneinfo_dir = root / "usr/share/zoneinfo"
    release, zones, links = zone_names(zoneinfo_dir)
    year = int(release[:4]) + 1
    offsets: dict[str, str] = {}
    for name in zones:
        with open(zoneinfo_dir / name, "rb") as tzif:
            offsets[name] = standard_offset(zoneinfo.ZoneInfo.from_file(tzif, key=name), year)
    for name, target in links.items():
        offsets[name] = offsets[target]
    snapshot = {
        "source": f"Debian package tzdata {package_version} (IANA tz database {release}), /usr/share/zoneinfo TZif files read with Python zoneinfo",
        "debianPackageVersion": package_version,
        "debianPackageDate": package_date(root / "usr/share/doc/tzdata"),
        "tzdataVersion": release,
        "licence": "public domain (IANA tz database; Debian's copyright file)",
        "referenceYear": year,
        "definition": "the smallest UTC offset in force at any hour of the reference year (UTC); links take their target's",
        "generatedBy": "generator/check/references/tzdata.py",
        "zones": dict(sorted(offsets.items())),
    }
    OUT.write_text(json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(offsets)} names ({len(zones)} zones, {len(links)} links), tzdata {release}, Debian {package_version}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deb", type=Path, help="a downloaded tzdata .deb; default: the installed package")
    args = parser.parse_args()
    if args.deb is None:
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "tzdata"], check=True, capture_output=True, text=True).stdout
        write_snapshot(Path("/"), version)
        return
    version = subprocess.run(["dpkg-deb", "-f", str(args.deb), "Version"], check=True, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["dpkg-deb", "-x", str(args.deb), root], check=True)
        write_snapshot(Path(root), version)


if __name__ == "__main__":
    main()
