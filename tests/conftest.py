import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOTCOV_SHARED_DIR", REPO.parent / "shared"))
