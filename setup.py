"""What pyproject.toml cannot say: every package is found (none listed by hand), and the committed
models/ folder ships inside the wheel as the package ``vision.models`` (vision/reader.py finds it
with importlib.resources when warref is installed, and in models/ in a checkout)."""
from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["referee*", "vision*", "web*"]), "vision.models"],
      package_dir={"vision.models": "models"})
