"""
The python-holidays step of `npm run data:holidays`: writes a compact snapshot of every holiday
python-holidays (the `holidays` package, pinned in holidays-requirements.txt) knows, for every
country and territory it supports and every year of data/build.json `holidayYears`, so that the
TypeScript importer (holidays.ts) and CI read a committed file and never run Python.

    python generator/import/holidays_snapshot.py --data data --out data/sources/python-holidays-0.105.json.gz

The snapshot (gzip, written with mtime 0 so that the same inputs give the same bytes) is JSON:

    {"package": "holidays", "version": "0.105", "dependencies": {"python-dateutil": "…"},
     "years": {"first": 2000, "last": 2050},
     "countries": {"AD": {"language": "ca", "categories": ["government", "public"],
                          "days": [["2000-01-01", "public", "Cap d'Any", "New Year's Day"], …],
                          "weekendWorkdays": [["2025-01-26", "<name>", "<English name>"], …]}, …}}

- `days`: one entry per date, category and name, sorted. Each category is computed on its own
  (`categories=(category,)`, `observed=True`, the package's default, so observed and substitute
  days are there exactly where python-holidays' per-country rules put them). Several names on one
  date (python-holidays joins them with "; ") are separate entries.
- Names: in the entity's `default_language` and in `en_US` where it supports that language; an
  entity without a default language is written in English only, so both names are the same.
  The locale environment variables are cleared first: python-holidays otherwise reads them.
- `weekendWorkdays`: the weekend days python-holidays counts as working days because a day off
  was moved from them (China's 调休, Belarus' and Russia's transfers): its `weekend_workdays`. Each
  carries the name of the day off it was moved to, which names this date ("Day off (substituted
  from 01/26/2025)"), in both languages.
"""

import argparse
import gzip
import json
import os
import sys
import warnings
from datetime import date
from importlib.metadata import version
from pathlib import Path

# python-holidays reads these to pick a language when none is given; the snapshot must not depend
# on the shell it was made in.
for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
    os.environ.pop(variable, None)

import holidays  # noqa: E402  (after the environment is cleared)

ENGLISH = "en_US"

# Sweden's law counts every Sunday as a general holiday (allmän helgdag, Lag (1989:253) 1 §), and
# python-holidays lists all 52 unless told not to: a Sunday is a weekly rest day, not a holiday a
# calendar should name, so only the named days are taken (Norway's class defaults to the same).
OPTIONS = {"SE": {"include_sundays": False}}


def read_window(data_dir: Path) -> tuple[int, int]:
    settings = json.loads((data_dir / "build.json").read_text(encoding="utf-8"))
    window = settings["holidayYears"]
    return int(window["first"]), int(window["last"])


def entity(code: str, years: range, category: str | None, language: str | None):
    categories = (category,) if category is not None else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calendar = getattr(holidays, code)(years=years, categories=categories, language=language, **OPTIONS.get(code, {}))
    for warning in caught:
        # India's Hindu calendar is tabulated for 2001-2035 only; say so instead of hiding it.
        print(f"{code} {category}: {warning.message}", file=sys.stderr)
    return calendar


def names_by_date(calendar, first: int, last: int) -> dict[date, list[str]]:
    return {day: calendar.get_list(day) for day in sorted(calendar) if first <= day.year <= last}


def snapshot_country(code: str, first: int, last: int) -> dict:
    cls = type(holidays.country_holidays(code))
    language = cls.default_language
    english = ENGLISH if language is not None and ENGLISH in cls.supported_languages else language
    # A year either side: a substitute day off may be paid for by a weekend day of the next or
    # previous year, and its name is needed to label that weekend day.
    years = range(first - 1, last + 2)
    days: list[list[str]] = []
    every_name: list[tuple[str, str]] = []
    workdays: set[date] = set()
    calendars = []
    for category in sorted(cls.supported_categories):
        native = entity(code, years, category, language)
        translated = entity(code, years, category, english)
        native_names = names_by_date(native, first - 1, last + 1)
        english_names = names_by_date(translated, first - 1, last + 1)
        if native_names.keys() != english_names.keys():
            raise SystemExit(f"{code} {category}: the {language} and {english} calendars have different dates")
        for day, names in native_names.items():
            in_english = english_names[day]
            if len(names) != len(in_english):
                raise SystemExit(f"{code} {category} {day}: {names} and {in_english} differ in count")
            every_name.extend(zip(names, in_english))
            if first <= day.year <= last:
                days.extend([day.isoformat(), category, name, name_en] for name, name_en in zip(names, in_english))
        # weekend_workdays is a set the class shares with all its instances, whatever their
        # categories: it is read from every calendar and labelled from the names of all of them.
        workdays.update(day for day in native.weekend_workdays if first <= day.year <= last)
        calendars.append((native, translated))
    weekend_workdays: list[list[str]] = []
    native, translated = calendars[0]
    for workday in sorted(workdays):
        label = workday.strftime(native.tr(native.substituted_date_format))
        label_en = workday.strftime(translated.tr(translated.substituted_date_format))
        found = sorted({(name, name_en) for name, name_en in every_name if label in name and label_en in name_en})
        if not found:
            raise SystemExit(f"{code}: no day off names the working day {workday}")
        weekend_workdays.extend([workday.isoformat(), name, name_en] for name, name_en in found)
    days.sort()
    return {"language": language, "categories": sorted(cls.supported_categories), "days": days, "weekendWorkdays": weekend_workdays}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the data directory (its build.json gives the years)")
    parser.add_argument("--out", type=Path, required=True, help="the snapshot to write (.json.gz)")
    arguments = parser.parse_args()

    first, last = read_window(arguments.data)
    codes = sorted(holidays.list_supported_countries(include_aliases=False))
    snapshot = {
        "package": "holidays",
        "version": version("holidays"),
        "dependencies": {"python-dateutil": version("python-dateutil")},
        "years": {"first": first, "last": last},
        "countries": {code: snapshot_country(code, first, last) for code in codes},
    }
    text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    temporary = arguments.out.with_name(arguments.out.name + ".tmp")
    temporary.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    temporary.replace(arguments.out)
    print(f"{arguments.out}: {len(codes)} countries, {sum(len(c['days']) for c in snapshot['countries'].values())} days, {first}-{last}")


if __name__ == "__main__":
    main()
