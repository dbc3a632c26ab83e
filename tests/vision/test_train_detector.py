"""Training helpers of the detector (vision/train/detector.py) that need torch: run in the training
environment (`make train-env`, then `.venv-train/bin/python -m pytest tests/vision/test_train_detector.py`);
skipped where torch is not installed, as in `make test`."""
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch", reason="torch is only in the training environment (make train-env)")


def test_kept_norms_neither_learn_nor_update_their_statistics_while_the_rest_learns():
    from vision.train.detector import keep_norms

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                                torch.nn.Conv2d(4, 2, 1))
    norm = model[1]
    with torch.no_grad():                       # statistics and scales unlike a fresh norm's
        norm.running_mean.uniform_(-1, 1)
        norm.running_var.uniform_(0.5, 2)
        norm.weight.uniform_(0.5, 2)
    before = {k: v.clone() for k, v in norm.state_dict().items()}
    conv = model[0].weight.detach().clone()
    model.train()                               # as ultralytics leaves it at each epoch's start
    keep_norms(SimpleNamespace(model=model))
    assert not norm.training and model[0].training
    assert not any(p.requires_grad for p in norm.parameters())
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    x = torch.randn(8, 3, 10, 10) * 3 + 2
    # with the norm kept, the output is the one it gives when evaluated
    out = model(x)
    model.eval()
    assert torch.allclose(out, model(x))
    model.train()
    keep_norms(SimpleNamespace(model=model))
    model(x).square().mean().backward()
    optimizer.step()
    after = norm.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not torch.equal(conv, model[0].weight)
    # without it, the same step moves the norm's statistics
    model.train()
    model(x)
    assert not torch.equal(before["running_mean"], norm.running_mean)


def test_a_run_given_hours_resumes_to_the_epochs_it_had_settled_on(tmp_path):
    from vision.train.detector import settle_epochs

    run = tmp_path / "run"
    (run / "weights").mkdir(parents=True)
    last = run / "weights" / "last.pt"
    # ultralytics' checkpoint after one epoch of a 0.7-hour run: 100 epochs, as it saves before counting
    torch.save({"epoch": 0, "train_args": {"epochs": 100, "time": 0.7, "lr0": 5e-5}}, last)
    (run / "results.csv").write_text("epoch,time,train/box_loss\n1,1958.87,0.79\n")
    settle_epochs(last)
    args = torch.load(last, weights_only=False)["train_args"]
    assert args == {"epochs": 2, "time": None, "lr0": 5e-5}      # 0.7 h / 1,959 s an epoch -> 2
    # one whose hours were spent comes to the epochs it trained (ultralytics: nothing to resume)
    torch.save({"epoch": 1, "train_args": {"epochs": 100, "time": 0.7}}, last)
    (run / "results.csv").write_text("epoch,time\n1,1300\n2,2600\n")
    settle_epochs(last)
    assert torch.load(last, weights_only=False)["train_args"] == {"epochs": 2, "time": None}
    # a run given epochs is resumed as it is
    torch.save({"epoch": 0, "train_args": {"epochs": 7, "time": None}}, last)
    settle_epochs(last)
    assert torch.load(last, weights_only=False)["train_args"] == {"epochs": 7, "time": None}
