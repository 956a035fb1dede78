# A common mistake: division's local derivative for the denominator taken as 1/y (the sign and
# the x/y² forgotten), so dy/dw comes out wrong while dy/dx and sin are right.
def sin(x):
    x = as_value(x)
    return record("sin", [x], np.sin(x.data), lambda g: [g * np.cos(x.data)])

def div(x, y):
    x, y = as_value(x), as_value(y)
    return record("div", [x, y], x.data / y.data, lambda g: [g / y.data, g / y.data])

Value.__truediv__ = lambda self, other: div(self, other)

TAPE.clear()
x, w = Value(2.0), Value(3.0)
y = sin(x * w) + x / w
mine = [float(g) for g in backward(y, [x, w])]
