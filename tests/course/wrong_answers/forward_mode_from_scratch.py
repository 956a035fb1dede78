# The student writes tanh's derivative but forgets to multiply it by the incoming tangent.
def dual_pow(self, k):
    return Dual(self.value ** k, k * self.value ** (k - 1) * self.tangent)

Dual.__pow__ = dual_pow


def tanh(u):
    value = np.tanh(u.value)
    return Dual(value, 1 - value ** 2)


x = Dual(0.5, 1.0)
slope = (tanh(x) ** 3 + x * x).tangent
