"""Each kind of step's line of the program and its run on tensors (program.py).
"""
import tapekit as tk


def test_the_program_is_printable():
    v = tk.Variable(1.0, name="v")

    @tk.function
    def f(x):
        v.assign_add(x)
        return v * 2.0
    f(tk.constant(1.0))
    ((program,),) = f.programs.values()   # one signature, one path
    # Straight-line Python, one line per step; the update is one step under v's lock; the
    # Python number 2.0 beside a float32 array is a float32 constant (codegen.typed_number).
    assert [line.split("#")[0].rstrip() for line in str(program).splitlines()] == [
        "def f(s0):", "    assign_add(v, s0)", "    del s0", "    s1 = v._value",
        "    s3 = multiply(s1, f32_2)", "    del s1", "    return s3"]
