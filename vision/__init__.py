"""warref's eyes, knowing nothing of rules.

At the table (the run time): camera sources (sources.py), the card detector (detector.py) and reader
(reader.py, its optional steps in steps/), deck profiles and taught decks (profiles.py, decks.py,
teach.py), the tracker that turns sightings into cards on the table (tracker.py).

The lab, which the table never imports (tests/test_layers.py): training (train/), datasets of
synthetic scenes (synth/dataset.py), and measuring on labelled photos (lab/: evaluate.py,
metrics.py, judge.py, calibrate.py, realcards.py, webcam.py). Shared by both: card art (art/) and
the scene renderer (synth/), which the demo and teaching a deck use too.
"""
