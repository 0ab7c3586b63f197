"""Writes data/checks/references/iso-codes-country-names.json.gz: every translation of an ISO 3166-1
country name in iso-codes' gettext catalogues (iso_3166-1.po, compiled as .mo), the reference of
the `countryNames` data check.

Usage (from the repository root; the wheel is read as a zip file, nothing is installed):
    pip download --no-deps pycountry==26.2.16
    python3 generator/check/references/isoCodesCountryNames.py --wheel pycountry-26.2.16-py3-none-any.whl

pycountry bundles iso-codes' databases and catalogues unchanged; the catalogues of 26.2.16 are those
of iso-codes 4.20.1 (see data/SOURCES.md for how that was checked). iso-codes' translations are
made by its own translation teams (Weblate, formerly the Translation Project), not by CLDR's.

The snapshot (gzip, written with mtime 0 so that the same wheel gives the same bytes) is JSON:

    {"package": "pycountry", "version": "26.2.16", "wheelSha256": "…", "fields": ["name", …],
     "catalogues": {"de": {"revised": "2023-02-24", "countries": {"DE": {"name": "Deutschland",
                    "official_name": "Bundesrepublik Deutschland"}, …}}, …}}

- Every catalogue, by its gettext locale name (`de`, `pt_BR`, `sr@latin`): which CLDR locale each
  stands for is the check's decision (generator/check/countryNames.ts), not this file's.
- Per country (alpha-2 code), each of iso-codes' English names (`name`, the ISO short name such as
  "Korea, Republic of"; `common_name` where it has one, "South Korea"; `official_name`) that the
  catalogue translates. A compiled catalogue holds translated, non-fuzzy entries only, so a name
  left out is one the translators have not translated (gettext would show the English).
- `revised`: the catalogue's PO-Revision-Date (the day of its last translation change).
"""

import argparse
import gettext
import gzip
import hashlib
import io
import json
import re
import zipfile
from pathlib import Path

OUT = Path("data/checks/references/iso-codes-country-names.json.gz")
FIELDS = ("name", "common_name", "official_name")
CATALOGUE = re.compile(r"^pycountry/locales/([^/]+)/LC_MESSAGES/iso3166-1\.mo$")


def read_catalogue(data: bytes) -> tuple[str, dict[str, str]]:
    translations = gettext.GNUTranslations(io.BytesIO(data))
    revised = translations.info().get("po-revision-date", "")[:10]
    # The header entry (msgid "") is metadata, not a translation.
    return revised, {msgid: msgstr for msgid, msgstr in translations._catalog.items() if msgid and msgstr}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, required=True, help="a downloaded pycountry wheel")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    wheel_bytes = args.wheel.read_bytes()
    with zipfile.ZipFile(io.BytesIO(wheel_bytes)) as wheel:
        version = next(
            line.split(":", 1)[1].strip()
            for line in wheel.read(next(name for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))).decode().splitlines()
            if line.startswith("Version:")
        )
        countries = json.loads(wheel.read("pycountry/databases/iso3166-1.json"))["3166-1"]
        catalogues: dict[str, dict] = {}
        for entry in sorted(wheel.namelist()):
            match = CATALOGUE.match(entry)
            if not match:
                continue
            revised, translated = read_catalogue(wheel.read(entry))
            names: dict[str, dict[str, str]] = {}
            for country in countries:
                own = {field: translated[country[field]] for field in FIELDS if field in country and country[field] in translated}
                if own:
                    names[country["alpha_2"]] = own
            catalogues[match.group(1)] = {"revised": revised, "countries": dict(sorted(names.items()))}

    snapshot = {
        "source": f"iso-codes' ISO 3166-1 translations (iso_3166-1 gettext catalogues) as bundled in pycountry {version} (PyPI)",
        "package": "pycountry",
        "version": version,
        "wheelSha256": hashlib.sha256(wheel_bytes).hexdigest(),
        "licence": "LGPL-2.1-or-later (iso-codes' translations; pycountry's COPYRIGHT.txt)",
        "generatedBy": "generator/check/references/isoCodesCountryNames.py",
        "fields": list(FIELDS),
        "english": {country["alpha_2"]: {field: country[field] for field in FIELDS if field in country} for country in countries},
        "catalogues": catalogues,
    }
    text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n"
    args.out.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    count = sum(len(own) for catalogue in catalogues.values() for own in catalogue["countries"].values())
    print(f"{args.out}: {len(catalogues)} catalogues, {count} translated names, pycountry {version}")


if __name__ == "__main__":
    main()
