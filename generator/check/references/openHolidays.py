"""Writes data/checks/references/openholidays-public.json.gz: the public holidays and subdivisions
of OpenHolidays' data (github.com/openpotato/openholidaysapi.data, ODbL 1.0), the reference of
the `openHolidays` and `regionalHolidays` data checks.

Usage (from the repository root), with a clone or snapshot of the repository at the commit named:
    git clone https://github.com/openpotato/openholidaysapi.data /tmp/ohd && git -C /tmp/ohd checkout dd3dfa8
    python3 generator/check/references/openHolidays.py --repo /tmp/ohd

OpenHolidays is maintained by its own contributors from official sources (statutes, state
gazettes, school authorities) and is derived from neither python-holidays nor date-holidays, so
agreement with it is evidence. The file keeps, for each country, its public holidays (`src/<cc>/holidays/holidays.public.csv`,
or Portugal's `holidays.national.csv` and `holidays.regional.csv`; school and municipal holidays
are left out) and `src/<cc>/subdivisions.csv` exactly as the commit has them (semicolon-separated, with a BOM),
so the check parses the source's own text; gzip is written with mtime 0, so the same commit gives
the same bytes.
"""

import argparse
import gzip
import json
import subprocess
from pathlib import Path

OUT = Path("data/checks/references/openholidays-public.json.gz")


def git(repo: Path, *arguments: str) -> str:
    return subprocess.run(["git", f"--git-dir={repo}", *arguments], check=True, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the repository's git directory (or a clone's .git)")
    parser.add_argument("--commit", default="HEAD")
    arguments = parser.parse_args()
    repo = arguments.repo / ".git" if (arguments.repo / ".git").exists() else arguments.repo
    commit = git(repo, "rev-parse", arguments.commit).strip()
    date = git(repo, "show", "-s", "--format=%cI", commit).strip()
    countries = {}
    for entry in git(repo, "ls-tree", "--name-only", f"{commit}:src").split():
        if entry.endswith(".csv"):
            continue
        listed = git(repo, "ls-tree", "--name-only", f"{commit}:src/{entry}/holidays").split()
        wanted = [name for name in ("holidays.public.csv", "holidays.national.csv", "holidays.regional.csv") if name in listed]
        holidays = {name: git(repo, "show", f"{commit}:src/{entry}/holidays/{name}") for name in wanted}
        try:
            subdivisions = git(repo, "show", f"{commit}:src/{entry}/subdivisions.csv")
        except subprocess.CalledProcessError:
            subdivisions = ""
        countries[entry.upper()] = {"holidays": holidays, "subdivisions": subdivisions}
    snapshot = {
        "source": {"repository": "https://github.com/openpotato/openholidaysapi.data", "commit": commit, "committed": date, "licence": "ODbL-1.0"},
        "countries": countries,
    }
    text = json.dumps(snapshot, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    OUT.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{OUT}: {len(countries)} countries from {commit[:12]} ({date})")


if __name__ == "__main__":
    main()
