"""Cart bridge over a ravine: two cliffs, a motor-driven test cart, headwind on everything."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

CART_GROUP = -2
CHASSIS_W, CHASSIS_H = 2.0, 0.4
WHEEL_R = 0.35
WHEEL_DX = 0.75
SEAT = 0.25  # depth of the bearing seat cut into each cliff top
START_X = -6.0
CLIFF_DEPTH = 20.0
CLIFF_LENGTH = 16.0
EDGE = 1.5  # how far the build zone reaches onto each cliff top


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        W, D, H = env["gap_width"], env["zone_depth"], env["zone_height"]
        build = [[(-EDGE, -SEAT), (0.0, -SEAT), (0.0, -D), (W, -D), (W, -SEAT), (W + EDGE, -SEAT), (W + EDGE, H),
                  (-EDGE, H)]]
        anchors = [[(-EDGE, -D), (0.0, -D), (0.0, -SEAT), (-EDGE, -SEAT)],
                   [(W, -D), (W + EDGE, -D), (W + EDGE, -SEAT), (W, -SEAT)]]
        return {"build": build, "anchors": anchors}

    def build(self) -> None:
        env, sim = self.env, self.sim
        W = env["gap_width"]
        sim.set_gravity(0.0, -env["gravity"])
        top = CLIFF_LENGTH - EDGE  # the road on each cliff; the last EDGE metres are the bearing seat
        sim.static_box((-EDGE - top / 2, -CLIFF_DEPTH / 2), top, CLIFF_DEPTH, friction=0.9)
        sim.static_box((-EDGE / 2, -(CLIFF_DEPTH + SEAT) / 2), EDGE, CLIFF_DEPTH - SEAT, friction=0.9)
        sim.static_box((W + EDGE + top / 2, -CLIFF_DEPTH / 2), top, CLIFF_DEPTH, friction=0.9)
        sim.static_box((W + EDGE / 2, -(CLIFF_DEPTH + SEAT) / 2), EDGE, CLIFF_DEPTH - SEAT, friction=0.9)
        sim.static_box((W / 2, -CLIFF_DEPTH - 0.5), W + 2 * CLIFF_LENGTH, 1.0)  # the ravine floor
        # the cart: chassis + two motor-driven wheels; the mass is the cart's total
        wheel_area = 3.141592653589793 * WHEEL_R ** 2
        wheel_density = 0.1 * env["cart_mass"] / 2 / wheel_area
        chassis_density = 0.9 * env["cart_mass"] / (CHASSIS_W * CHASSIS_H)
        y = WHEEL_R + 0.15
        self.chassis = sim.dynamic_box((START_X, y), CHASSIS_W, CHASSIS_H, chassis_density, friction=0.5,
                                       role="vehicle", name="cart", group=CART_GROUP)
        self.wheels = []
        omega = -env["cart_speed"] / WHEEL_R  # clockwise: to the right
        for dx in (-WHEEL_DX, WHEEL_DX):
            wheel = sim.dynamic_circle((START_X + dx, WHEEL_R), WHEEL_R, wheel_density, friction=env["tyre_friction"],
                                       role="vehicle", name="cart wheel", group=CART_GROUP)
            sim.world.CreateRevoluteJoint(bodyA=self.chassis, bodyB=wheel, anchor=(START_X + dx, WHEEL_R),
                                          enableMotor=True, motorSpeed=omega, maxMotorTorque=env["cart_torque"])
            self.wheels.append(wheel)
        # headwind: a horizontal force per metre of frontal height, on the cart and every design part
        self._wind = []

    def place(self, design) -> None:
        wind = self.env["wind"]
        if wind == 0:
            self.forces = False
            return
        import math

        targets = [(self.chassis, CHASSIS_H + 2 * WHEEL_R)]
        for p in design.parts:
            frontal = abs(math.sin(p.angle)) * p.width + abs(math.cos(p.angle)) * p.height
            targets.append((self.sim.parts[p.id], frontal))
        self._wind = [(body, (wind * h, 0.0)) for body, h in targets]

    def before_step(self, step: int) -> None:
        for body, force in self._wind:
            body.ApplyForceToCenter(force, True)
