"""warref's eyes: camera sources, the card detector and reader, the synthetic data generator and the
table tracker. Empty until the card-art and card-reader issues land; it knows nothing of rules."""
