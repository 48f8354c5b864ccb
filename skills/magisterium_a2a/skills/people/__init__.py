"""The people skills' engine: the popes (authored data), the clergy (a built-in
sample of the College of Cardinals and imported Wikidata exports), forgiving
name matching, and the importer's atomic store."""
