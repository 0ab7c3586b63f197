"""Writes data/checks/references/turkiye-api-neighborhoods-2024.json.gz: every mahalle of
TurkiyeAPI's 2024 list (TÜİK's units and spellings), the reference of the `neighbourhoodNames`
data check.

Usage (from the repository root), with a clone or snapshot of the repository:
    git clone https://github.com/ubeydeozdmr/turkiye-api /tmp/turkiye-api
    python3 generator/check/references/turkiyeApiNeighbourhoods.py --repo /tmp/turkiye-api

The file read is `src/data/neighborhoods.min.json` of the v1 branch (commit 1a250229, unchanged
since 2024-08-11): 32,186 mahalles, each with its province and district by name. Its successor,
`datasets/neighborhoods.json` of v2 (2025 data, with postal codes), is over the size the snapshots
at hand keep; v1's names are TÜİK's of 2024. The snapshot keeps [province, district, name] exactly
as the file writes them, one row a line; gzip is written with mtime 0, so the same commit gives the
same bytes.
"""

import argparse
import gzip
import hashlib
import json
import subprocess
from pathlib import Path

OUT = Path("data/checks/references/turkiye-api-neighborhoods-2024.json.gz")
COMMIT = "1a250229b774a893e2d62fed4a49fdffa8f79a6d"
FILE = "src/data/neighborhoods.min.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the repository's git directory (or a clone's .git)")
    arguments = parser.parse_args()
    repo = arguments.repo / ".git" if (arguments.repo / ".git").exists() else arguments.repo
    raw = subprocess.run(["git", "--git-dir", str(repo), "show", f"{COMMIT}:{FILE}"], check=True, capture_output=True).stdout
    rows = json.loads(raw)
    snapshot = {
        "title": "TurkiyeAPI v1 neighbourhoods (TÜİK mahalle names, 2024)",
        "repository": "https://github.com/ubeydeozdmr/turkiye-api",
        "commit": COMMIT,
        "path": FILE,
        "fileSha256": hashlib.sha256(raw).hexdigest(),
        "fileLastChanged": "2024-08-11",
        "neighborhoods": [[row["province"], row["district"], row["name"]] for row in rows],
    }
    text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")).replace("],[", "],\n[")
    OUT.write_bytes(gzip.compress((text + "\n").encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{OUT}: {len(rows)} mahalles from {COMMIT[:12]}")


if __name__ == "__main__":
    main()
