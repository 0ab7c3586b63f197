"""
The python-holidays step of `npm run data:holidays`: writes a compact snapshot of every holiday
python-holidays (the `holidays` package, pinned in holidays-requirements.txt) knows, for every
country and territory it supports and every year of data/build.json `holidayYears`, so that the
TypeScript importer (holidays.ts) and CI read a committed file and never run Python.

    python generator/import/holidays_snapshot.py --data data --out data/sources/python-holidays-0.105.json.gz

The snapshot (gzip, written with mtime 0 so that the same inputs give the same bytes) is JSON:

    {"package": "holidays", "version": "0.105", "dependencies": {"python-dateutil": "…"},
     "years": {"first": 2000, "last": 2050},
     "countries": {"AD": {"language": "ca", "english": "en_US", "categories": ["government", "public"],
                          "days": [["2000-01-01", "public", "Cap d'Any", "New Year's Day"], …],
                          "weekendWorkdays": [["2025-01-26", "<name>", "<English name>"], …]}, …}}

- `days`: one entry per date, category and name, sorted. Each category is computed on its own
  (`categories=(category,)`, `observed=True`, the package's default, so observed and substitute
  days are there exactly where python-holidays' per-country rules put them). Several names on one
  date (python-holidays joins them with "; ") are separate entries.
- Names: in the entity's `default_language`, exactly as python-holidays gives them, and in English
  (`english`, see english_language): the English name of each, or null where the names are English
  already (no default language, or an English one) or where no English name could be paired (none
  in 0.105). The locale environment variables are cleared first: python-holidays otherwise reads them.
- Pairing: python-holidays joins the names of one date as "A; B" sorted in each language's own
  alphabet, and some of its rules read that order (Azerbaijan's 2026-03-25 is Novruz's observed
  day in Azerbaijani and Eid al-Fitr's in English), so the two calendars of one date cannot be
  paired by position. Each name is paired instead through the call that added it: the entity is
  computed again in both languages with a class that keeps names in the order they were added
  (OrderedNames), so both follow one code path, and the n-th name added in one language is the
  n-th in the other. A name paired with two English names anywhere is left unpaired, and a pair
  that python-holidays' own catalogues contradict stops the script.
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
from gettext import translation
from importlib.metadata import version
from pathlib import Path

# python-holidays reads these to pick a language when none is given; the snapshot must not depend
# on the shell it was made in.
for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
    os.environ.pop(variable, None)

import holidays  # noqa: E402  (after the environment is cleared)
from holidays.constants import HOLIDAY_NAME_DELIMITER as DELIMITER  # noqa: E402

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


def english_language(cls) -> str | None:
    """
    The language of the English names: none where the entity's names are English already; else its
    own English (en_HK for Hong Kong's "Tuen Ng Festival", as its government writes it) where
    python-holidays has one, else en_US, which every other entity supports.
    """
    language = cls.default_language
    if language is None or language.startswith("en"):
        return None
    own = f"en_{cls.country}"
    return own if own in cls.supported_languages else ENGLISH


def ordered_names(cls):
    """
    `cls` with each date's names kept in the order they were added rather than sorted, and every
    addition logged: the same rules then run the same way in any language (see Pairing above).
    """

    def __setitem__(self, key, value):
        day = self.__keytransform__(key)
        self.additions.append((day, value))
        if day in self:
            names = dict.__getitem__(self, day).split(DELIMITER)
            value = DELIMITER.join(names + [name for name in value.split(DELIMITER) if name not in names])
        dict.__setitem__(self, day, value)

    return type(cls.__name__, (cls,), {"__setitem__": __setitem__})


def additions(cls, code: str, years: range, category: str, language: str) -> list[tuple[date, str]]:
    calendar = cls.__new__(cls)
    calendar.additions = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warnings are the entity's own, printed by entity()
        calendar.__init__(years=years, categories=(category,), language=language, **OPTIONS.get(code, {}))
    return calendar.additions


def english_names(cls, code: str, years: range, english: str) -> dict[str, str]:
    """Each name of the entity in its default language, paired with its English name through the call that added both."""
    ordered = ordered_names(cls)
    paired: dict[str, set[str]] = {}
    for category in sorted(cls.supported_categories):
        native = additions(ordered, code, years, category, cls.default_language)
        translated = additions(ordered, code, years, category, english)
        if [day for day, _ in native] != [day for day, _ in translated]:
            raise SystemExit(f"{code} {category}: the {cls.default_language} and {english} calendars add their days in another order")
        for (day, names), (_, names_en) in zip(native, translated):
            parts, parts_en = names.split(DELIMITER), names_en.split(DELIMITER)
            if len(parts) != len(parts_en):
                raise SystemExit(f"{code} {category} {day}: {names!r} and {names_en!r} differ in count")
            for name, name_en in zip(parts, parts_en):
                paired.setdefault(name, set()).add(name_en)
    check_against_catalogues(cls, code, english, paired)
    return {name: next(iter(found)) for name, found in paired.items() if len(found) == 1}


def check_against_catalogues(cls, code: str, english: str, paired: dict[str, set[str]]) -> None:
    """A second look, independent of the rules: a name that is one message of the entity's catalogues must pair with that message's English."""
    locale = str(Path(holidays.__file__).with_name("locale"))
    native = translation(code, localedir=locale, languages=[cls.default_language], fallback=True)
    translated = translation(code, localedir=locale, languages=[english], fallback=True)
    messages = set(getattr(native, "_catalog", {})) | set(getattr(translated, "_catalog", {}))
    catalogue: dict[str, set[str]] = {}
    for message in messages:
        if message:
            catalogue.setdefault(native.gettext(message), set()).add(translated.gettext(message))
    for name, found in paired.items():
        if name in catalogue and not found <= catalogue[name]:
            raise SystemExit(f"{code}: {name!r} is paired with {sorted(found)}, its catalogues say {sorted(catalogue[name])}")


def snapshot_country(code: str, first: int, last: int) -> dict:
    cls = type(holidays.country_holidays(code))
    language = cls.default_language
    english = english_language(cls)
    # A year either side: a substitute day off may be paid for by a weekend day of the next or
    # previous year, and its name is needed to label that weekend day.
    years = range(first - 1, last + 2)
    in_english = english_names(cls, code, years, english) if english is not None else {}
    days: list[list[str | None]] = []
    every_name: set[str] = set()
    workdays: set[date] = set()
    calendar = None
    for category in sorted(cls.supported_categories):
        calendar = entity(code, years, category, language)
        for day, names in names_by_date(calendar, first - 1, last + 1).items():
            every_name.update(names)
            if first <= day.year <= last:
                days.extend([day.isoformat(), category, name, in_english.get(name)] for name in names)
        # weekend_workdays is a set the class shares with all its instances, whatever their
        # categories: it is read from every calendar and labelled from the names of all of them.
        workdays.update(day for day in calendar.weekend_workdays if first <= day.year <= last)
    unpaired = sorted({name for _, _, name, name_en in days if english is not None and name_en is None})
    if unpaired:
        print(f"{code}: {len(unpaired)} names without an English name: {unpaired[:5]}", file=sys.stderr)
    weekend_workdays: list[list[str | None]] = []
    for workday in sorted(workdays):
        label = workday.strftime(calendar.tr(calendar.substituted_date_format))
        found = sorted(name for name in every_name if label in name)
        if not found:
            raise SystemExit(f"{code}: no day off names the working day {workday}")
        weekend_workdays.extend([workday.isoformat(), name, in_english.get(name)] for name in found)
    days.sort(key=lambda entry: (entry[0], entry[1], entry[2]))
    return {
        "language": language,
        "english": english,
        "categories": sorted(cls.supported_categories),
        "days": days,
        "weekendWorkdays": weekend_workdays,
    }


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
    countries = snapshot["countries"].values()
    translated = [country for country in countries if country["english"] is not None]
    names = sum(len(country["days"]) for country in translated)
    paired = sum(1 for country in translated for day in country["days"] if day[3] is not None)
    print(f"{arguments.out}: {len(codes)} countries, {sum(len(c['days']) for c in countries)} days, {first}-{last}")
    print(f"English names: {paired} of {names} days of the {len(translated)} entities not named in English; the other {len(codes) - len(translated)} are")


if __name__ == "__main__":
    main()
