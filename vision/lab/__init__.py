"""The lab's measuring on labelled real photos, which the table never imports (tests/test_layers.py).

realcards.py (the labelled photo sets and their audit), webcam.py (webcam-like copies of them),
metrics.py (how predictions are scored), evaluate.py (`warref eval`), judge.py (`warref judge`: keep
a candidate model or not) and calibrate.py (`python -m vision.lab.calibrate`: would a calibration of
the confidence read more cards surely?).
"""
