#!/usr/bin/env python3
"""PTT neighbourhood rows -> display name, type, parent; and agreement with TÜİK (TurkiyeAPI).

    python3 rules.py                 # measure, print the figures (needs /work/main/data and the
                                     # turkiye-api-*.json copies next to this file)
    python3 rules.py --examples      # also print every non-agreeing row to nonmatches.tsv
    python3 -c 'import rules; print(rules.display("Akdere Mah (Başlı Köyü)"))'

No packages beyond the standard library.

display(name) -> (display_name, type, parent_or_None)
  display_name  what a Turkish address form shows in its "Mahalle / Köy" list, e.g.
                "Caferağa Mahallesi", "Akpınar Köyü", "Akdere Mahallesi (Başlı Köyü)"
  type          one of: mahalle, köy, köy_mahallesi, osb, sb (serbest bölge), yayla, mezra,
                mevkii, site, other
  parent        None, or the village / belde the row belongs to, in display form
                ("Başlı Köyü", "Deliilyas Beldesi")
parse(name) gives the parts (bare name = the TÜİK-style name without the type word, alt name,
parent bare name and kind, flags) for code that needs them.
"""
import re
import sys

# ----------------------------------------------------------------------------------------------
# Turkish case helpers
_UP = {"i": "İ", "ı": "I"}
_LO = {"I": "ı", "İ": "i"}


def tr_upper(s):
    return "".join(_UP.get(c, c.upper()) for c in s)


def tr_lower(s):
    return "".join(_LO.get(c, c.lower()) for c in s)


def tr_cap(word):
    """First letter upper-cased with Turkish rules, the rest unchanged."""
    return tr_upper(word[:1]) + word[1:] if word else word


def fold(s):
    """Strict key: Turkish lower case, single spaces. (İ->i, I->ı: 'Işık' != 'İşık')."""
    return re.sub(r"\s+", " ", tr_lower(s)).strip()


_ASCII = str.maketrans("çğıöşüâîûÇĞIÖŞÜÂÎÛ", "cgiosuaiuCGIOSUAIU")


def loose(s):
    """Loose key: strict key without spaces, punctuation or Turkish diacritics."""
    return re.sub(r"[^0-9a-z]", "", fold(s).translate(_ASCII))


# ----------------------------------------------------------------------------------------------
# The rule set
_MAH = r"(?:Mah\.?|Mh\.?|Mahallesi|Mahalle)"          # PTT's ways of writing "Mahallesi"
_PARENT = re.compile(r"\s*\(([^()]+?)\s+(Köyü|Beldesi)\)$")
_ALT = re.compile(r"^(.*?)\s*" + _MAH + r"?\s*\(([^()]+?)\s+Mah\)\s*(.*)$")
_TAIL_TYPES = [  # (regex on the tail of the base, type, display word)
    (re.compile(r"^(.*?)\s*\bKöyü$"), "köy", "Köyü"),
    (re.compile(r"^(.*?)\s*\bKöy$"), "köy", "Köyü"),
    (re.compile(r"^(.*?)\s*" + _MAH + r"$"), "mahalle", "Mahallesi"),
]
# glued "...mah." ("Yenimah.", "Aşağımah.") = "... Mahallesi"
_GLUED_MAH = re.compile(r"^(\S+?)mah\.$")


def _fix_case(s):
    """Upper-case (Turkish rules) the letter after '(' and after '.' that PTT's scraper left
    lower-cased ('Yk.hırbe' -> 'Yk.Hırbe', '100.yıl' -> '100.Yıl'). Letters after '-' and '/'
    are left alone ('Ahmed-i Hani')."""
    s = re.sub(r"\((\w)", lambda m: "(" + tr_upper(m.group(1)), s)
    s = re.sub(r"\.(\w)", lambda m: "." + tr_upper(m.group(1)), s)
    return s


def _split_glued(s):
    """'Balcılar Mh.kavraz Yaylası' -> 'Balcılar Mh. Kavraz Yaylası'."""
    return re.sub(r"\b(Mh|Mah)\.(\w)", lambda m: m.group(1) + ". " + tr_upper(m.group(2)), s)


def parse(raw):
    s = re.sub(r"\s+", " ", raw).strip()
    s = re.sub(r"\(\s+", "(", s)
    s = re.sub(r"\s+\)", ")", s)
    flags = []
    parent = parent_kind = None

    # R1 parent: a trailing "(X Köyü)" / "(X Beldesi)" names the village / belde the row is in
    m = _PARENT.search(s)
    if m:
        parent, parent_kind = _fix_case(m.group(1)), ("köy" if m.group(2) == "Köyü" else "belde")
        s = s[: m.start()].strip()

    # R2 village-prefixed sub-places: "Şenişler Köyü Ketenova Yaylası", "Tepeköy Köyü Merkez",
    #    "Eynehan Köy Merkezi", "Armutveren Köy Yaylası"
    m = re.match(r"^(.+?) Köyü? (.+)$", s)
    if m and not parent and not re.search(_MAH + r"$", s):
        parent, parent_kind = m.group(1), "köy"
        flags.append("village-prefixed")     # the name already says which village: kept whole

    # R3 a glued tail after a bracket: "(Organize Mah)osb", "(Yoncalı Mah)mz", ") Mz",
    #    "(Hayallar Mah)yayla Evleri"
    typ_hint = None
    m = re.search(r"\)\s*(osb|mz|Mz)$", s)
    if m:
        typ_hint = "osb" if m.group(1).lower() == "osb" else "mezra"
        s = s[: m.start() + 1].strip()
        flags.append("garbled-tail")
    m = re.match(r"^Mah \(([^()]+) Mah\)(\w.*)$", s)
    if m:  # "Mah (Hayallar Mah)yayla Evleri" -> "Hayallar Yayla Evleri"
        s = m.group(1) + " " + tr_cap(m.group(2))
        flags.append("garbled-order")

    s = re.sub(r"\s*\b(?:Mh|Mah)\.(\d+)$", r" \1 Mah", s)   # "Merkez Mh.2" -> "Merkez 2 Mah"
    s = _split_glued(s)
    alt = None
    # R4 a second name in brackets "X Mah (Y Mah)": Y is the old / other name or the bucak that
    #    tells two same-named units apart; TÜİK writes the unit "X (Y)".
    m = _ALT.match(s)
    if m and m.group(2):
        x, y, rest = m.group(1).strip(), m.group(2).strip(), m.group(3).strip()
        if rest in ("", "Mh.", "Mah", "Mah."):
            if x in ("", "Yok"):           # "Yok Mah (Kale Mah)": no first name -> "Kale"
                x, y = y, None
                flags.append("yok")
            alt = y
            s = x + " Mah"

    # R5 type from the tail word
    typ, word, bare = None, None, s
    for rx, t, w in _TAIL_TYPES:
        m = rx.match(s)
        if m and m.group(1):
            typ, word, bare = t, w, m.group(1).strip()
            break
    if typ is None:
        m = _GLUED_MAH.match(s)
        if m:
            typ, word, bare = "mahalle", "Mahallesi", m.group(1)
            flags.append("glued-mah")
    if typ is None:
        low = tr_lower(s)
        if re.search(r"yaylas[ıi]$|yaylalar[ıi]$|yayla evleri$|yayla evi$", low):
            typ = "yayla"
        elif re.search(r"mezras[ıi]$", low):
            typ = "mezra"
        elif re.search(r"mevkii?$", low):
            typ = "mevkii"
        elif re.search(r"\bsitesi$", low):
            typ = "site"
        elif re.search(r"\bosb$|organize sanayi", low):
            typ = "osb"
        else:
            typ = "other"
        bare = s
        # "Balcılar Mh. Kavraz Yaylası": expand the inner abbreviation
        bare = re.sub(r"\b(Mh|Mah)\.?(?=\s|$)", "Mahallesi", bare)
    # inner "Mh." left inside a mahalle name ("Baş Mh. Mah") -> drop it
    if typ == "mahalle":
        bare = re.sub(r"\s*\b(Mh|Mah)\.?$", "", bare).strip()
        m = re.match(r"^(.*\S)\s*(Mh|Mah)\.(\d+)$", bare)
        if m:
            bare = m.group(1) + " " + m.group(3)
    # R6 organised industrial zones (OSB) and free zones (SB, serbest bölge): PTT gives them their
    #    own postal area, named "<mahalle or zone> Osb Mah", "<x>osb Mah", "<x> Sb Mah",
    #    "Organize Sanayi Bölgesi Mah". They are not TÜİK units.
    if typ == "mahalle":
        m = re.match(r"^(.*?)\s*(\d+\.)?\s*osb\s*(\d*)$", bare, re.I) or re.match(r"^(.*?)()osb(\d)kısım$", bare, re.I)
        if m and not parent_kind == "köy":
            typ, word = "osb", None
            core = (m.group(1) + (" " + m.group(2) if m.group(2) else "")).strip()
            bare = (core + " OSB" + (" " + m.group(3) if m.group(3) else "")).strip()
        elif re.search(r"\bSb$", bare):
            typ, word = "sb", None
            bare = re.sub(r"\s*\bSb$", " Serbest Bölgesi", bare)
        elif re.search(r"organize sanayii? bölgesi|sanayi bölgesi", tr_lower(bare)):
            typ, word = "osb", None
    if typ_hint:
        typ = typ_hint
        word = {"osb": "OSB", "mezra": "Mezrası"}[typ_hint]

    bare = _fix_case(bare)
    if alt:
        alt = _fix_case(alt)
    if parent_kind == "köy" and typ == "mahalle":
        typ = "köy_mahallesi"
    return {
        "bare": bare,                 # TÜİK-style name of the unit ("Caferağa", "Kumköy (Kilyos)")
        "alt": alt,                   # the bracketed second name, if any
        "type": typ,
        "word": word,                 # the type word of the display form
        "parent": parent,             # bare parent name
        "parent_kind": parent_kind,   # "köy" | "belde" | None
        "flags": flags,
    }


def tuik_name(p):
    """The unit's name as TÜİK writes it: bare name, and the second name in brackets."""
    return p["bare"] + (" (" + p["alt"] + ")" if p["alt"] else "")


def display(name):
    p = parse(name)
    n = tuik_name(p)
    d = n + (" " + p["word"] if p["word"] else "")
    parent = None
    if p["parent"]:
        parent = p["parent"] + (" Köyü" if p["parent_kind"] == "köy" else " Beldesi")
        if "village-prefixed" not in p["flags"]:
            d = d + " (" + parent + ")"
    return d, p["type"], parent


# ----------------------------------------------------------------------------------------------
# Measuring
def _load(path):
    import json
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _v1_case(t):
    """TurkiyeAPI v1 (2024) neighbourhood names lower-case the letter after '.', '-', '(' and write
    'I' for a word-initial 'İ' ('Şehit Hacı Ibrahim'); undo that to compare the rest."""
    t = re.sub(r"(?<![\w])I(?=[a-zçğöşü]*[iİ])", "İ", t)
    return t


def measure(main="/work/main/data", here=None, write_examples=False):
    import collections
    import difflib
    import glob
    import os

    here = here or os.path.dirname(os.path.abspath(__file__))
    prov = {p["id"]: p for p in _load(f"{main}/records/stateProvince.json")}
    dist = {d["id"]: d for d in _load(f"{main}/records/district.json")}
    rows = []
    for f in sorted(glob.glob(f"{main}/records/neighborhood/*.json")):
        rows += _load(f)

    t_prov = {p["id"]: p["name"] for p in _load(f"{here}/turkiye-api-provinces.json")}
    t_dist = {d["id"]: (t_prov[d["provinceId"]], d["name"]) for d in _load(f"{here}/turkiye-api-districts.json")}
    t_vill = _load(f"{here}/turkiye-api-villages.json")
    t_nbh = _load(f"{here}/turkiye-api-neighborhoods-v1.json")
    t_mun = _load(f"{here}/turkiye-api-municipalities.json")

    def dkey(pn, dn):
        return (fold(pn), fold(dn))

    # TÜİK units by district
    units = collections.defaultdict(list)   # dkey -> [(kind, name, postalCode)]
    for v in t_vill:
        units[dkey(*t_dist[v["districtId"]])].append(("köy", v["name"], v.get("postalCode")))
    for n in t_nbh:
        units[dkey(n["province"], n["district"])].append(("mahalle", n["name"], None))
    towns = collections.defaultdict(set)
    for m in t_mun:
        if m["type"] == "town":
            towns[dkey(*t_dist[m["districtId"]])].add(m["name"])

    ptt_dkeys = {dkey(prov[d["stateProvinceId"]]["name"], d["name"]) for d in dist.values()}
    missing_d = sorted(ptt_dkeys - set(units))
    print(f"PTT districts {len(ptt_dkeys)}, TurkiyeAPI districts {len(set(units))}, "
          f"PTT districts without a TurkiyeAPI namesake: {len(missing_d)} {missing_d[:10]}")

    # ---- pattern counts
    pat = collections.Counter()
    typ = collections.Counter()
    for r in rows:
        p = parse(r["name"])
        r["_p"] = p
        r["_dk"] = dkey(prov[dist[r["districtId"]]["stateProvinceId"]]["name"], dist[r["districtId"]]["name"])
        typ[(p["type"], p["parent_kind"])] += 1
        for fl in p["flags"]:
            pat["flag:" + fl] += 1
        if p["alt"]:
            pat["alt-name (X Mah (Y Mah))"] += 1
    print("\nTypes (type, parent kind):")
    for k, v in typ.most_common():
        print(f"  {v:6d}  {k}")
    print("Flags:", dict(pat))

    # ---- matching
    # What is compared with TÜİK:
    #   mahalle rows (no parent or a belde parent)  -> TÜİK mahalle of the district
    #   köy rows                                    -> TÜİK köy of the district
    #   rows with a köy parent (köy_mahallesi ...)  -> their PARENT name vs TÜİK köy (TÜİK lists
    #                                                  no quarters of villages)
    used = set()
    res = []   # (row, subject, our_name, tuik_name, how)
    subjects = []
    for r in rows:
        p = r["_p"]
        if p["parent_kind"] == "köy":
            subjects.append((r, "parent-köy", p["parent"], "köy"))
        elif p["type"] == "köy":
            subjects.append((r, "köy", tuik_name(p), "köy"))
        elif p["type"] in ("mahalle",):
            subjects.append((r, "mahalle", tuik_name(p), "mahalle"))
        elif p["type"] in ("osb", "sb"):
            # compared: the mahalle the zone is named after, when it is one
            core = re.sub(r"\s*(OSB.*|Serbest Bölgesi)$", "", p["bare"])
            subjects.append((r, p["type"], core, "mahalle"))
        else:
            subjects.append((r, p["type"], tuik_name(p), None))

    idx_strict = collections.defaultdict(list)
    idx_loose = collections.defaultdict(list)
    for dk, us in units.items():
        for kind, name, pc in us:
            idx_strict[(dk, kind, fold(name))].append((name, pc))
            idx_loose[(dk, kind, loose(name))].append((name, pc))

    for r, subj, ours, kind in subjects:
        dk = r["_dk"]
        if kind is None:
            res.append((r, subj, ours, None, "not-compared"))
            continue
        hit = idx_strict.get((dk, kind, fold(ours)))
        if hit:
            res.append((r, subj, ours, hit[0][0], "strict"))
            continue
        hit = idx_loose.get((dk, kind, loose(ours)))
        if hit:
            res.append((r, subj, ours, hit[0][0], "loose"))
            continue
        # PTT "Kavak Köyü" for TÜİK "Kavakköy" (the köy word of the name taken as the type word),
        # and the reverse ("Türkmenköy Köyü" for "Türkmen")
        if kind == "köy":
            keys = [loose(ours + "köy"), loose(ours + "köyü")]
            if loose(ours).endswith("koy"):
                keys.append(loose(ours)[:-3])
            hit = next((idx_loose[(dk, kind, k)] for k in keys if (dk, kind, k) in idx_loose), None)
            if hit:
                res.append((r, subj, ours, hit[0][0], "köy-suffix"))
                continue
        # other kind of unit with that name (a PTT village that TÜİK has as mahalle, or reverse)
        other = "mahalle" if kind == "köy" else "köy"
        hit = idx_strict.get((dk, other, fold(ours))) or idx_loose.get((dk, other, loose(ours)))
        if hit:
            res.append((r, subj, ours, hit[0][0], "other-kind"))
            continue
        # postal code (villages: TurkiyeAPI's code is PTT's): a same-code village whose name is close
        cands = [(n, pc) for k, n, pc in units.get(dk, []) if k == kind]
        best, score = None, 0.0
        for n, pc in cands:
            if kind == "köy" and pc != r["zipCode"]:
                continue
            sc = difflib.SequenceMatcher(None, loose(ours), loose(n)).ratio()
            if sc > score:
                best, score = n, sc
        if best and score >= 0.8:
            res.append((r, subj, ours, best, "postal-fuzzy" if kind == "köy" else "district-fuzzy"))
            continue
        res.append((r, subj, ours, None, "unmatched"))

    # ---- figures
    print("\nMatching (subject, how): rows")
    c = collections.Counter((s, h) for _, s, _, _, h in res)
    for k, v in sorted(c.items()):
        print(f"  {v:6d}  {k}")

    def figures(label, sel):
        sel = list(sel)
        paired = [x for x in sel if x[3] is not None and x[4] not in ("other-kind",)]
        equal = [x for x in paired if x[2] == x[3]]
        print(f"\n{label}: rows {len(sel)}, paired with a TÜİK unit {len(paired)}, "
              f"name equal {len(equal)} = {len(equal) / max(1, len(paired)):.4f} of paired; "
              f"paired {len(paired) / max(1, len(sel)):.4f} of rows")
        return paired, equal

    direct = [x for x in res if x[1] in ("mahalle", "köy")]
    figures("Rows that are TÜİK units themselves (mahalle + köy)", direct)
    figures("  mahalle (incl. belde quarters)", [x for x in res if x[1] == "mahalle"])
    figures("  köy", [x for x in res if x[1] == "köy"])
    figures("Rows inside a village: the parent village's name", [x for x in res if x[1] == "parent-köy"])
    strictish = [x for x in direct if x[4] in ("strict", "loose")]
    figures("Direct rows paired by name key only (strict or loose, no fuzzy)", strictish)

    # belde parents vs TÜİK towns (municipalities of type town)
    bp = [(r, r["_p"]["parent"]) for r in rows if r["_p"]["parent_kind"] == "belde"]
    ok = sum(1 for r, b in bp if b in towns.get(r["_dk"], ()))
    okl = sum(1 for r, b in bp if loose(b) in {loose(t) for t in towns.get(r["_dk"], ())})
    print(f"\nBelde parents: {len(bp)} rows, parent equals a TÜİK belde (town) of the district "
          f"{ok} ({ok / max(1, len(bp)):.4f}); by loose key {okl}")

    # ---- the classes of non-agreement
    def cls(x):
        r, s, ours, t, how = x
        if t is None:
            return "no TÜİK unit of that name in the district"
        if how == "other-kind":
            return "TÜİK has it as the other kind (köy<->mahalle)"
        if ours == t:
            return "equal"
        if how == "köy-suffix":
            return "köy word: PTT 'X Köyü' = TÜİK 'Xköy' (or reverse)"
        if re.sub(r"(?<!\w)İ", "I", ours) == t and "İ" in ours:
            return "TurkiyeAPI writes I for İ ('Ibrahim', 'Ihsan')"
        if fold(ours) == fold(t) or fold(ours) == fold(_v1_case(t)):
            return "case only"
        if loose(ours) == loose(t):
            if ours.replace(" ", "") == t.replace(" ", ""):
                return "spacing only"
            return "diacritics / punctuation"
        return "different spelling (fuzzy pair)"

    cc = collections.defaultdict(list)
    for x in res:
        if x[1] in ("mahalle", "köy", "parent-köy", "osb", "sb"):
            cc[(x[1], cls(x))].append(x)
    print("\nClasses:")
    for k in sorted(cc):
        ex = [f'{x[0]["name"]!r}->{x[3]!r}' for x in cc[k][:4]]
        print(f"  {len(cc[k]):6d}  {k}  e.g. {'; '.join(ex) if k[1] != 'equal' else ''}")
    # ---- headline
    art = ("case only", "TurkiyeAPI writes I for İ ('Ibrahim', 'Ihsan')")
    for label, subjects_ in (("mahalle+köy rows (the TÜİK units themselves)", ("mahalle", "köy")),
                             ("  mahalle", ("mahalle",)), ("  köy", ("köy",)),
                             ("parent village of rows inside a village", ("parent-köy",))):
        tot = sum(len(v) for k, v in cc.items() if k[0] in subjects_)
        unp = sum(len(v) for k, v in cc.items() if k[0] in subjects_ and k[1].startswith(("no TÜİK", "TÜİK has")))
        eq = sum(len(v) for k, v in cc.items() if k[0] in subjects_ and k[1] == "equal")
        eqa = eq + sum(len(v) for k, v in cc.items() if k[0] in subjects_ and k[1] in art)
        ks = sum(len(v) for k, v in cc.items() if k[0] in subjects_ and k[1].startswith("köy word"))
        den = tot - unp
        print(f"HEADLINE {label}: rows {tot}, paired {den} ({den / tot:.4f}), equal {eq} = {eq / den:.4f}; "
              f"equal or TurkiyeAPI-v1 casing artefact {eqa} = {eqa / den:.4f}; "
              f"same, with TÜİK's name taken for the {ks} 'köy word' pairs {(eqa + ks) / den:.4f}")
    if write_examples:
        with open(os.path.join(here, "nonmatches.tsv"), "w", encoding="utf-8") as f:
            f.write("subject\tclass\tprovince/district\tzip\tptt_name\tour_name\ttuik_name\n")
            for k in sorted(cc):
                if k[1] == "equal":
                    continue
                for r, s, ours, t, how in cc[k]:
                    f.write(f"{k[0]}\t{k[1]}\t{'/'.join(r['_dk'])}\t{r['zipCode']}\t{r['name']}\t{ours}\t{t or ''}\n")
    return res


if __name__ == "__main__":
    measure(write_examples="--examples" in sys.argv)
