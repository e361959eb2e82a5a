"""Treebank data: the catalog (treebanks/*.yaml), format readers, split schemes, normalization
steps, ``mlparse prepare`` and its manifest, CoNLL-U validation, and the synthetic demo treebank.

Modules: catalog (YAML -> typed specs; the spec types in specs), sources (finding folders and
files), splits (split schemes), formats (format registry; sinica for ICG notation), steps
(pipeline step registry), prepare (the pipeline), dependencies (the dependency version of a
treebank with heads: <split>.conllu), ud (CoNLL-U), prepared (what both produce per
language), manifest (manifest.json), output (atomic split writing), vocab and dependency_vocab
(vocabularies built from training data), synthetic and demo_data (the demo's fallback treebank).
"""
