"""
The python-holidays step of `npm run data:holidays`: writes a compact snapshot of every holiday
python-holidays (the `holidays` package, pinned in holidays-requirements.txt) knows, for every
country and territory it supports and every year of data/build.json `holidayYears`, so that the
TypeScript importer (holidays.ts) and CI read a committed file and never run Python.

    PYTHONHASHSEED=0 python generator/import/holidays/holidays_snapshot.py --data data --out data/sources/python-holidays-0.105.json.gz

(PYTHONHASHSEED=0, as `npm run data:holidays` sets it: some entities add days in the order of a
set of strings, which Python otherwise orders differently in every run.)

The snapshot (gzip, written with mtime 0 so that the same inputs give the same bytes) is JSON:

    {"package": "holidays", "version": "0.105", "dependencies": {"python-dateutil": "…"},
     "years": {"first": 2000, "last": 2050},
     "countries": {"AD": {"language": "ca", "english": "en_US", "categories": ["government", "public"],
                          "days": [["2000-01-01", "public", "Cap d'Any", "New Year's Day"], …],
                          "weekendWorkdays": [["2025-01-26", "<name>", "<English name>"], …],
                          "weekends": [["2000-01-01", [6, 7]], …],
                          "observed": [["2026-05-25", "<name>", "2026-05-24"], …],
                          "estimated": ["<name>", …],
                          "subdivisions": {"BY": {"days": […], "observed": […], "estimated": […],
                                                  "weekends": […] (only where they differ)}, …}}, …}}

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
- `weekends`: the weekend as python-holidays' rules give it day by day (`_get_weekend`: Saudi
  Arabia's was Thursday–Friday until 2013-06-27, the UAE's Friday–Saturday until 2021-12-31), as
  periods: each entry's ISO weekdays (1 = Monday … 7 = Sunday) hold from its date to the next's.
- `observed`: the days python-holidays adds as another day's observed or substitute day (its
  `_add_observed` with a label): [the day, its name, the day it stands in for]. Holidays moved to
  another day (`_move_holiday`, no label) are the holiday itself and are not listed.
- `estimated`: the names python-holidays marks as estimated (its `estimated_label`: Islamic and
  other lunar dates computed ahead of their announcement).
- `subdivisions`: for each of the entity's subdivisions (its `subdivisions`, ISO 3166-2 suffixes
  mostly), the days of every category but `school` it has in addition to the nation-wide ones (a date, category
  and name the national calendar lacks: Fribourg's Easter Monday is `optional`, its Good Friday
  `public`), with their observed days, estimated names and, where they differ from the nation's,
  its weekends (Malaysia's Kelantan, Terengganu and Kedah keep Friday–Saturday).
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
PUBLIC = "public"
# Germany's and Australia's school holidays by state: vacation periods of the schools (over 47,000
# days), not days a work calendar names; OpenHolidays and the states' ministries publish them.
SUBDIVISION_LEFT_OUT = {"school"}

# Sweden's law counts every Sunday as a general holiday (allmän helgdag, Lag (1989:253) 1 §), and
# python-holidays lists all 52 unless told not to: a Sunday is a weekly rest day, not a holiday a
# calendar should name, so only the named days are taken (Norway's class defaults to the same).
#
# Spain's national holidays keep their date when it is a Sunday: Real Decreto 2001/1983, art. 45.1
# lists them as national holidays whatever the weekday, and art. 45.2-3 give the Monday after a
# Sunday one as the day of rest unless the community puts another of its own in its place. python-
# holidays drops a Sunday one from the national list (its SUN_TO_NONE observed rule) and moves it
# in each community that keeps the Monday ("Lunes siguiente a …"): the nation-wide calendar is
# computed without observed rules (it keeps the day), each community's with them (its Mondays).
OPTIONS = {"SE": {"include_sundays": False}}
NATIONAL_OPTIONS = {"ES": {"observed": False}}


def options(code: str, subdivision: str | None) -> dict:
    """The entity's options: OPTIONS, and for the nation-wide calendar NATIONAL_OPTIONS too."""
    return {**OPTIONS.get(code, {}), **(NATIONAL_OPTIONS.get(code, {}) if subdivision is None else {})}


def read_window(data_dir: Path) -> tuple[int, int]:
    settings = json.loads((data_dir / "build.json").read_text(encoding="utf-8"))
    window = settings["holidayYears"]
    return int(window["first"]), int(window["last"])


def observing(cls):
    """
    `cls` with every labelled observed day logged in `observed_days` as (observed date, name, the
    date it stands in for): the names a call to `_add_observed` adds to the observed date.
    """

    def _add_observed(self, dt=None, *arguments, **options):
        if dt is None or not options.get("show_observed_label", True):
            return super(observed, self)._add_observed(dt, *arguments, **options)
        actual = dt if isinstance(dt, date) else date(self._year, *dt) if len(dt) == 2 else date(*dt)
        before = dict(self)
        result = super(observed, self)._add_observed(dt, *arguments, **options)
        # Compared as a whole: some entities override _add_observed and return nothing.
        for day, names in dict(self).items():
            if names != before.get(day):
                had = set(before[day].split(DELIMITER)) if day in before else set()
                self.observed_days.update((day, name, actual) for name in set(names.split(DELIMITER)) - had)
        return result

    def __init__(self, *arguments, **options):
        self.observed_days = set()
        super(observed, self).__init__(*arguments, **options)

    observed = type(cls.__name__, (cls,), {"_add_observed": _add_observed, "__init__": __init__})
    return observed


def entity(code: str, years: range, category: str | None, language: str | None, subdivision: str | None = None):
    categories = (category,) if category is not None else None
    place = {} if subdivision is None else {"subdiv": subdivision}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calendar = observing(type(holidays.country_holidays(code)))(years=years, categories=categories, language=language, **place, **options(code, subdivision))
    for warning in caught:
        # India's Hindu calendar is tabulated for 2001-2035 only; say so instead of hiding it.
        if subdivision is None:
            print(f"{code} {category}: {warning.message}", file=sys.stderr)
    return calendar


def weekends(calendar, first: int, last: int) -> list[list]:
    """The weekend day by day, as periods: [first day, ISO weekdays] whenever it changes."""
    periods: list[list] = []
    day = date(first, 1, 1)
    while day.year <= last:
        weekdays = sorted(weekday + 1 for weekday in calendar._get_weekend(day))
        if not periods or periods[-1][1] != weekdays:
            periods.append([day.isoformat(), weekdays])
        day = date.fromordinal(day.toordinal() + 1)
    return periods


def estimated_names(calendar, names: set[str]) -> list[str]:
    """The names that carry python-holidays' estimated label in the calendar's language."""
    label = getattr(calendar, "estimated_label", "")
    text = calendar.tr(label).strip("%s ()（）") if label else ""
    return sorted(name for name in names if text and text in name)


def observed_entries(calendar, first: int, last: int, keep) -> list[list[str]]:
    return sorted(
        [day.isoformat(), name, actual.isoformat()]
        for day, name, actual in calendar.observed_days
        if first <= day.year <= last and name in calendar.get_list(day) and keep(day, name)
    )


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


def additions(cls, code: str, years: range, category: str, language: str, subdivision: str | None = None) -> list[tuple[date, str]]:
    calendar = cls.__new__(cls)
    calendar.additions = []
    place = {} if subdivision is None else {"subdiv": subdivision}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warnings are the entity's own, printed by entity()
        calendar.__init__(years=years, categories=(category,), language=language, **place, **options(code, subdivision))
    return calendar.additions


def english_names(cls, code: str, years: range, english: str) -> dict[str, str]:
    """
    Each name of the entity in its default language, paired with its English name through the call
    that added both: the nation's days of every category, and each subdivision's.
    """
    ordered = ordered_names(cls)
    paired: dict[str, set[str]] = {}
    calls = [(category, None) for category in sorted(cls.supported_categories)]
    calls += [(category, subdivision) for subdivision in cls.subdivisions for category in sorted(set(cls.supported_categories) - SUBDIVISION_LEFT_OUT)]
    for category, subdivision in calls:
        native = additions(ordered, code, years, category, cls.default_language, subdivision)
        translated = additions(ordered, code, years, category, english, subdivision)
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
    observed: set[tuple[str, str, str]] = set()
    estimated: set[str] = set()
    nation = None
    for category in sorted(cls.supported_categories):
        calendar = entity(code, years, category, language)
        if category == PUBLIC:
            nation = calendar
        observed.update(tuple(entry) for entry in observed_entries(calendar, first, last, lambda day, name: True))
        for day, names in names_by_date(calendar, first - 1, last + 1).items():
            every_name.update(names)
            if first <= day.year <= last:
                days.extend([day.isoformat(), category, name, in_english.get(name)] for name in names)
                estimated.update(estimated_names(calendar, set(names)))
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
    nation = nation or calendar
    national = {(date.fromisoformat(day), category, name) for day, category, name, _ in days}
    national_weekends = weekends(nation, first, last)
    context = (first, last, years, language, in_english, national, national_weekends)
    return {
        "language": language,
        "english": english,
        "categories": sorted(cls.supported_categories),
        "days": days,
        "weekendWorkdays": weekend_workdays,
        "weekends": national_weekends,
        "observed": sorted(list(entry) for entry in observed),
        "estimated": sorted(estimated),
        "subdivisions": {
            subdivision: snapshot_subdivision(code, subdivision, sorted(set(cls.supported_categories) - SUBDIVISION_LEFT_OUT), context)
            for subdivision in cls.subdivisions
        },
    }


def snapshot_subdivision(code, subdivision, categories, context) -> dict:
    """A subdivision's days beyond the nation's (by date, category and name), with what the nation's entry says of them."""
    first, last, years, language, in_english, national, national_weekends = context
    days: list[list] = []
    observed: set[tuple[str, str, str]] = set()
    estimated: set[str] = set()
    calendar = None
    for category in categories:
        calendar = entity(code, years, category, language, subdivision)
        own = lambda day, name, category=category: (day, category, name) not in national  # noqa: E731
        found = [
            [day.isoformat(), category, name, in_english.get(name)]
            for day in calendar
            if first <= day.year <= last
            for name in calendar.get_list(day)
            if own(day, name)
        ]
        days += found
        observed.update(tuple(entry) for entry in observed_entries(calendar, first, last, own))
        estimated.update(estimated_names(calendar, {name for _, _, name, _ in found}))
    entry = {"days": sorted(days), "observed": sorted(list(entry) for entry in observed), "estimated": sorted(estimated)}
    own_weekends = weekends(calendar, first, last)
    if own_weekends != national_weekends:
        entry["weekends"] = own_weekends
    return entry


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
