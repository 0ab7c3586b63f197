#!/usr/bin/env python3
"""Per-country figures of GeoNames' postal code data as zauberware/postal-codes-json-xml-csv
packages it (one data/<CC>.zip per country, each holding the same rows as JSON, XML and CSV).

Reads every data/*.zip straight out of a bare git mirror (no work tree needed), parses the CSV
member, and writes one JSON object per country: rows, distinct postal codes, distinct places,
which admin levels are filled (admin1 = state, admin2 = province, admin3 = community), how many
distinct codes and names each level has, and how the admin1 codes relate to ISO 3166-2 codes of
data/records/stateProvince.json (the suffix after "CC-").

    python3 geonames_postal_stats.py --mirror /work/.mirror/zauberware+postal-codes-json-xml-csv/repo \
        --states ../../records/stateProvince.json --countries ../../records/country.json > geonames-postal-stats.json

Standard library only.
"""
import argparse
import csv
import io
import json
import subprocess
import sys
import unicodedata
import zipfile
from collections import Counter, defaultdict


def fold(name: str) -> str:
    """Lower case, no diacritics, letters and digits only: for name matching."""
    s = unicodedata.normalize('NFKD', name.casefold())
    return ''.join(c for c in s if c.isalnum())


def git(mirror, *args) -> bytes:
    return subprocess.run(['git', '-C', mirror, *args], check=True, capture_output=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('--mirror', required=True)
    ap.add_argument('--commit', default='HEAD')
    ap.add_argument('--states', required=True)
    ap.add_argument('--countries', required=True)
    a = ap.parse_args()

    countries = {c['id']: c['alpha2Code'] for c in json.load(open(a.countries, encoding='utf-8'))}
    iso = defaultdict(dict)  # CC -> abbreviation -> name
    for s in json.load(open(a.states, encoding='utf-8')):
        iso[countries[s['countryId']]][s['abbreviation']] = s['name']

    tree = git(a.mirror, 'ls-tree', '-r', '-l', a.commit, 'data/').decode().splitlines()
    out = {'commit': git(a.mirror, 'rev-parse', a.commit).decode().strip(), 'missing': [], 'countries': {}}
    for line in tree:
        meta, path = line.split('\t')
        _, _, blob, size = meta.split()
        if not path.endswith('.zip'):
            continue
        cc = path.rsplit('/', 1)[1][:-4]
        try:
            raw = git(a.mirror, 'cat-file', 'blob', blob)
        except subprocess.CalledProcessError:
            out['missing'].append({'country': cc, 'path': path, 'blob': blob, 'bytes': None if size == 'BAD' else int(size)})
            continue
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            member = f'zipcodes.{cc.lower()}.csv'
            rows = list(csv.DictReader(io.TextIOWrapper(z.open(member), encoding='utf-8')))
        out['countries'][cc] = measure(cc, rows, iso.get(cc, {}))
        print(cc, len(rows), file=sys.stderr)
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1, sort_keys=True)


def measure(cc, rows, iso_names):
    codes = {r['zipcode'] for r in rows}
    level = {}
    for n, (name, code) in enumerate([('state', 'state_code'), ('province', 'province_code'), ('community', 'community_code')], 1):
        filled = [r for r in rows if r[name].strip() or r[code].strip()]
        level[f'admin{n}'] = {
            'rowsFilled': len(filled),
            'distinctCodes': len({r[code] for r in filled if r[code].strip()}),
            'distinctNames': len({r[name] for r in filled if r[name].strip()}),
            'examples': sorted({f"{r[code]}={r[name]}" for r in filled})[:4],
        }
    # admin1 -> ISO 3166-2: by code (the suffix), else by folded name
    pairs = Counter((r['state_code'], r['state']) for r in rows if r['state_code'] or r['state'])
    iso_folded = {fold(v): k for k, v in iso_names.items()}
    by_code = by_name = none = 0
    unmatched = []
    for (code, name), n in pairs.items():
        if code in iso_names:
            by_code += n
        elif fold(name) in iso_folded:
            by_name += n
        else:
            none += n
            unmatched.append(f'{code}={name} ({n})')
    return {
        'rows': len(rows),
        'distinctPostalCodes': len(codes),
        'distinctPlaces': len({r['place'] for r in rows}),
        'distinctPlacesPerAdmin1': len({(r['state_code'], r['place']) for r in rows}),
        'levels': level,
        'admin1Pairs': len(pairs),
        'isoSubdivisions': len(iso_names),
        'admin1RowsIsoByCode': by_code,
        'admin1RowsIsoByName': by_name,
        'admin1RowsUnmatched': none,
        'admin1Unmatched': sorted(unmatched)[:12],
        'codeExamples': sorted(codes)[:2] + sorted(codes)[-1:],
    }


if __name__ == '__main__':
    main()
