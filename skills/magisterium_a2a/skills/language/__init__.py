"""The language layer every skill uses: what a user typed, in any of our languages
(English, Spanish, Portuguese, Italian, French, German, Polish, Japanese, Korean,
Chinese in Simplified and Traditional characters, Vietnamese, Tagalog; Latin where
the Church uses it), turned into the ids and English canonical forms the engines
already read. Engines keep working on those; a skill calls the layer once, at its
input.

  scripts       NFKC, format characters, combining marks, Traditional -> Simplified
  detect        the query's language (scripts, then py3langid over our languages)
  numerals      Roman and Chinese numerals
  tables        the data files, read once
  dates         date queries -> the liturgy engine's English, with ``celebrations``
                (names and ordinal Sundays) and ``phrases`` (fillers, the year):
                dateparser, romcal's locales and the team's tables
  popes saints dioceses   names -> the canonical name or id of each engine, with
                ``names`` (titles and question words around a name)

Tables are data under ``skills/data/language/`` (each names its sources and
licence); ``build_romcal_names`` generates the one taken from romcal. Nothing is
read until first used. The plug-in core does not import this package.
"""
