"""tapekit/convert.py: tk.constant and convert_to_tensor."""
import pytest

import tapekit as tk


def test_constant_refuses_text_and_names_numpys_dtype():
    with pytest.raises(TypeError, match=r"constant: cannot convert \[1, 'a'\].*dtype <U21"):
        tk.constant([1, "a"])
