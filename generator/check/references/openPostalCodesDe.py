"""Writes data/checks/references/open-postal-codes-de.json: Germany's postal codes as OpenStreetMap
maps them, the reference of the `germanPostalCodes` data check.

Usage (from the repository root), with a clone or snapshot of the repository:
    git clone https://github.com/Schoenfeld-Solutions/open-postal-codes /tmp/open-postal-codes
    python3 generator/check/references/openPostalCodesDe.py --repo /tmp/open-postal-codes

The file read is `data/public/v1/de/post_code.csv` at commit b486872 (2026-07-20, the weekly
refresh): Schoenfeld-Solutions' continuation of OpenPLZ API Data, built from OpenStreetMap's
postal-code boundaries (`source` postal_boundary) and, where a code has none, from the addresses
carrying it (address_fallback), in Geofabrik's extracts. ODbL 1.0 (OpenStreetMap contributors);
used by the check only, nothing of it is served. Kept per row: the code, the place (`city`), the
Land (`state`) and whether the row is the code's primary location; the county, time zone, ranks
and evidence counts are left out. One row a line, so a refresh reviews as a diff.
"""

import argparse
import csv
import hashlib
import io
import json
import subprocess
from pathlib import Path

OUT = Path("data/checks/references/open-postal-codes-de.json")
COMMIT = "b486872a1b41bbf2822389112b68846fb8ee8d42"
COMMIT_DATE = "2026-07-20"
FILE = "data/public/v1/de/post_code.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the repository's git directory (or a clone's .git)")
    arguments = parser.parse_args()
    repo = arguments.repo / ".git" if (arguments.repo / ".git").exists() else arguments.repo
    raw = subprocess.run(["git", "--git-dir", str(repo), "show", f"{COMMIT}:{FILE}"], check=True, capture_output=True).stdout
    rows = [
        [row["code"], row["city"], row["state"], row["is_primary_location"] == "true"]
        for row in csv.DictReader(io.StringIO(raw.decode("utf-8")))
        if row["country"] == "DE"
    ]
    snapshot = {
        "title": "open-postal-codes: Germany's postal codes from OpenStreetMap",
        "repository": "https://github.com/Schoenfeld-Solutions/open-postal-codes",
        "commit": COMMIT,
        "commitDate": COMMIT_DATE,
        "path": FILE,
        "fileSha256": hashlib.sha256(raw).hexdigest(),
        "licence": "ODbL-1.0 (OpenStreetMap contributors)",
        "generatedBy": "generator/check/references/openPostalCodesDe.py",
        "columns": ["code", "city", "state", "primary"],
        "rows": rows,
    }
    text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")).replace('"rows":[[', '"rows":[\n[').replace("],[", "],\n[")
    OUT.write_text(text + "\n", encoding="utf-8")
    print(f"{OUT}: {len(rows)} rows, {len({row[0] for row in rows})} codes from {COMMIT[:7]}")


if __name__ == "__main__":
    main()
