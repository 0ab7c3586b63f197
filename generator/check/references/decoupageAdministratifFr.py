"""Writes data/checks/references/cog-2026-postal-codes-fr.json.gz: France's communes of INSEE's
Code officiel géographique 2026 with La Poste's postal codes, the reference of the
`frenchPostalCodes` data check.

Usage (from the repository root; the tarball is read as it is, nothing is installed):
    npm pack @etalab/decoupage-administratif@6.0.0
    python3 generator/check/references/decoupageAdministratifFr.py --tarball etalab-decoupage-administratif-6.0.0.tgz

The file read is the package's `data/communes.json` (millésime 2026: the COG's communes, each with
the postal codes of La Poste's base officielle des codes postaux that serve it). Kept: one
[postal code, name, département, kind] row per code and commune, where kind is `commune` (a
commune actuelle), `arrondissement` (Paris', Lyon's and Marseille's arrondissements municipaux,
with their own codes) or `deleguee` / `associee` (a former commune inside a commune nouvelle or an
association, given the codes of the commune it belongs to, so that a postal list naming the former
commune can be told from one naming another place). Nothing else of the package is kept.
Gzip is written with mtime 0, so the same tarball gives the same bytes.
"""

import argparse
import json
from pathlib import Path

from npmSnapshot import read_member, rows_text, write_gzip

OUT = Path("data/checks/references/cog-2026-postal-codes-fr.json.gz")
MEMBER = "package/data/communes.json"
KINDS = {"commune-actuelle": "commune", "arrondissement-municipal": "arrondissement", "commune-deleguee": "deleguee", "commune-associee": "associee"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--tarball", type=Path, required=True, help="the npm pack tarball of @etalab/decoupage-administratif")
    arguments = parser.parse_args()
    provenance, raw = read_member(arguments.tarball, MEMBER)
    communes = json.loads(raw)
    codes_of = {commune["code"]: commune.get("codesPostaux", []) for commune in communes if commune["type"] == "commune-actuelle"}
    rows = set()
    for commune in communes:
        kind = KINDS[commune["type"]]
        # A former commune has no codes of its own in the COG: those of the commune it is part of.
        codes = commune.get("codesPostaux") or (codes_of.get(commune.get("chefLieu", ""), []) if kind in ("deleguee", "associee") else [])
        for code in codes:
            rows.add((code, commune["nom"], commune["departement"], kind))
    snapshot = {
        "title": "INSEE Code officiel géographique 2026 communes with La Poste's postal codes",
        **provenance,
        "licence": "Licence Ouverte 2.0 (INSEE, La Poste); package MIT",
        "generatedBy": "generator/check/references/decoupageAdministratifFr.py",
        "columns": ["code", "name", "departement", "kind"],
        "rows": sorted(rows),
    }
    write_gzip(OUT, rows_text(snapshot))
    print(f"{OUT}: {len(rows)} rows, {len({row[0] for row in rows})} codes from {provenance['package']}@{provenance['version']}")


if __name__ == "__main__":
    main()
