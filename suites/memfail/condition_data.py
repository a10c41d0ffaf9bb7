"""The phrase tables of the 32 condition types (see `conditions` for what each form is for).

Rules follow "only when" ("it is raining"); states follow "{E} often finds {refl}" ("out in
the rain"); situations open a question ("There's a steady drizzle against the windows").
"""

from __future__ import annotations

from .conditions import ConditionType, Numeric, Option

O = Option  # noqa: E741  (one letter keeps the data table below readable)


def _scale(noun: str, at_least: bool = True) -> Numeric:
    """A 1-10 self-rating (energy, stress, motivation)."""
    return Numeric(
        rules=(f"{{pos}} {noun} is at least {{n}} out of 10", f"{{pos}} {noun} level is {{n}} out of 10 or higher"),
        states=(f"with {{pos}} {noun} at {{n}} out of 10 or higher",),
        situations=(
            f"{{E}} rates {{pos}} {noun} at {{m}} out of 10 right now",
            f"{{E}} says {{pr}} is at about {{m}}/10 on {noun} today",
        ),
        at_least=at_least,
        thresholds=(6, 7, 8),
        span=(1, 10),
    )


CONDITION_TYPES: tuple[ConditionType, ...] = (
    # --- time -------------------------------------------------------------------------------
    ConditionType(
        "time_of_day",
        "time",
        True,
        (
            O(
                "dawn",
                ("it is early in the morning", "the sun has just come up"),
                ("up at the crack of dawn",),
                (
                    "It's 6:40 and the first light is creeping over the rooftops",
                    "The alarm went off at 6 a.m. a few minutes ago",
                ),
            ),
            O(
                "afternoon",
                ("it is the middle of the afternoon",),
                ("at home in the middle of the afternoon",),
                ("It's 3 p.m. on an ordinary weekday", "Lunch was a couple of hours ago and dinner is still far off"),
            ),
            O(
                "late_night",
                ("it is past midnight", "it is the middle of the night"),
                ("wide awake past midnight",),
                ("It's 1:30 a.m. and the house is dark", "Everyone went to bed hours ago and it's nearly 2 a.m."),
            ),
        ),
    ),
    ConditionType(
        "day_of_week",
        "time",
        False,
        (
            O(
                "sunday",
                ("it is a Sunday",),
                ("at loose ends on a Sunday",),
                ("Tomorrow is Monday and the weekend is almost over", "It's the last day of the weekend"),
            ),
            O(
                "friday",
                ("it is a Friday",),
                ("winding down on a Friday",),
                ("Tomorrow is Saturday and the office empties out early", "It's the last workday of the week"),
            ),
            O(
                "wednesday",
                ("it is a Wednesday",),
                ("in the thick of a Wednesday",),
                ("Yesterday was Tuesday", "It's right in the middle of the work week"),
            ),
        ),
    ),
    ConditionType(
        "season",
        "time",
        False,
        (
            O(
                "autumn",
                ("it is autumn", "the leaves are turning in autumn"),
                ("in the crisp days of autumn",),
                ("It's late October", "It's mid-November and the trees are nearly bare"),
            ),
            O(
                "winter",
                ("it is winter",),
                ("in the depths of winter",),
                ("It's the second week of January", "It's February and there's frost on the car"),
            ),
            O(
                "summer",
                ("it is summer",),
                ("in the long days of summer",),
                ("It's the middle of July", "It's a hot week in August"),
            ),
            O("spring", (), (), ("It's March and the crocuses are out", "It's early April")),
        ),
    ),
    ConditionType(
        "time_elapsed",
        "time",
        False,
        numeric=Numeric(
            rules=("{pr} has been awake for at least {n} hours", "{pr} has been up for {n} hours or more"),
            states=("awake for {n} hours or more",),
            situations=("{E} woke up {m} hours ago", "It has been {m} hours since {E} got out of bed"),
            at_least=True,
            thresholds=(3, 4, 5, 6, 8),
            span=(1, 14),
        ),
    ),
    # --- environment ------------------------------------------------------------------------
    ConditionType(
        "weather",
        "environment",
        True,
        (
            O(
                "rain",
                ("it is raining", "rain is falling outside"),
                ("out in the rain",),
                ("It's pouring outside", "There's a steady drizzle against the windows"),
            ),
            O(
                "snow",
                ("it is snowing",),
                ("out in the snow",),
                (
                    "Thick flakes have been coming down all morning and the yard is white",
                    "A blizzard is blowing outside",
                ),
            ),
            O(
                "sun",
                ("the sun is shining",),
                ("out in bright sunshine",),
                ("There isn't a single cloud in the sky", "It's bright and warm outside with clear blue skies"),
            ),
        ),
    ),
    ConditionType(
        "temperature",
        "environment",
        True,
        numeric=Numeric(
            rules=("it is colder than {n} degrees outside", "the temperature outside drops below {n} degrees"),
            states=("out in temperatures below {n} degrees",),
            situations=("It's {m} degrees Celsius outside", "The thermometer on the porch reads {m} degrees"),
            at_least=False,
            thresholds=(5, 10, 15),
            span=(-6, 30),
        ),
    ),
    ConditionType(
        "location",
        "environment",
        True,
        (
            O(
                "garden",
                ("{pr} is out in the garden",),
                ("out in the garden",),
                (
                    "{E} is outside among the tomato plants and flower beds",
                    "{E} is out back by the compost heap and the rose bushes",
                ),
            ),
            O(
                "beach",
                ("{pr} is at the beach",),
                ("down at the beach",),
                ("{E} is on the sand with the waves rolling in", "{E} is standing by the shoreline watching the tide"),
            ),
            O(
                "kitchen",
                ("{pr} is in the kitchen",),
                ("in the kitchen",),
                (
                    "{E} is standing right by the stove and the fridge",
                    "{E} is next to the sink where the pots are soaking",
                ),
            ),
        ),
    ),
    ConditionType(
        "noise_level",
        "environment",
        True,
        (
            O(
                "quiet",
                ("the house is completely quiet",),
                ("in a perfectly quiet house",),
                ("Everyone else is out and you could hear a pin drop", "The house is empty and still"),
            ),
            O(
                "loud",
                ("there is a lot of noise around {obj}",),
                ("surrounded by loud noise",),
                ("The neighbours are drilling and the TV is blaring", "A marching band is going past the window"),
            ),
        ),
    ),
    ConditionType(
        "lighting",
        "environment",
        True,
        (
            O(
                "dark",
                ("the lights are off",),
                ("sitting in the dark",),
                ("Every lamp is switched off and the curtains are drawn", "It's pitch black in the room"),
            ),
            O(
                "bright",
                ("the room is flooded with sunlight",),
                ("in a room flooded with sunlight",),
                (
                    "The curtains are wide open at noon and the room is glowing",
                    "Sunbeams are pouring through every window",
                ),
            ),
            O(
                "lamp",
                ("a single lamp is on",),
                ("working by the light of a single lamp",),
                ("One small desk lamp is the one light switched on", "A lone reading light is glowing in the corner"),
            ),
        ),
    ),
    # --- physical ---------------------------------------------------------------------------
    ConditionType(
        "hunger_level",
        "physical",
        False,
        (
            O(
                "hungry",
                ("{pr} has skipped a meal", "{pr} is really hungry"),
                ("skipping meals",),
                (
                    "{E} hasn't eaten anything since breakfast and it's almost dinner time",
                    "{E}'s stomach has been growling for an hour",
                ),
            ),
            O(
                "full",
                ("{pr} has just eaten a big meal",),
                ("full after a big meal",),
                ("{E} just finished a three-course lunch", "{E} just polished off two plates of lasagne"),
            ),
        ),
    ),
    ConditionType("energy_level", "physical", False, numeric=_scale("energy")),
    ConditionType(
        "pain_or_discomfort",
        "physical",
        False,
        (
            O(
                "headache",
                ("{pr} has a headache", "{pos} head is pounding"),
                ("nursing a headache",),
                (
                    "{E} is rubbing {pos} temples and wincing at the light",
                    "{E} took two aspirin for the throbbing behind {pos} eyes",
                ),
            ),
            O(
                "backache",
                ("{pos} back is sore",),
                ("with a sore back",),
                (
                    "{E} pulled a muscle lifting boxes and can barely bend over",
                    "{E} is walking stiffly and holding the base of {pos} spine",
                ),
            ),
            O("no_pain", (), (), ("{E} feels perfectly fine today with no aches at all",)),
        ),
    ),
    ConditionType(
        "sobriety",
        "physical",
        False,
        (
            O(
                "wine",
                ("{pr} has had a glass of wine",),
                ("with a glass of wine in hand",),
                ("{E} is halfway through a glass of merlot", "{E} just finished a generous pour of rosé"),
            ),
            O(
                "sober",
                ("{pr} is completely sober",),
                ("stone-cold sober at gatherings",),
                ("{E} has had nothing but sparkling water all evening", "{E} hasn't touched a drop of alcohol tonight"),
            ),
        ),
    ),
    # --- emotional --------------------------------------------------------------------------
    ConditionType(
        "mood",
        "emotional",
        False,
        (
            O(
                "cheerful",
                ("{pr} is in a cheerful mood",),
                ("in a cheerful mood",),
                (
                    "{E} just got great news and is grinning from ear to ear",
                    "{E} has been laughing and joking all morning",
                ),
            ),
            O(
                "gloomy",
                ("{pr} is feeling down",),
                ("feeling down",),
                (
                    "{E} has been sighing and staring out the window after some bad news",
                    "{E} seems blue and has barely said a word today",
                ),
            ),
            O(
                "irritated",
                ("{pr} is annoyed",),
                ("annoyed with the world",),
                (
                    "{E} just got stuck in traffic for an hour and is fuming",
                    "{E} is muttering under {pos} breath about a rude email",
                ),
            ),
        ),
    ),
    ConditionType("stress_level", "emotional", False, numeric=_scale("stress")),
    ConditionType(
        "anxiety_level",
        "emotional",
        False,
        (
            O(
                "anxious",
                ("{pr} feels anxious", "{pr} is nervous about something"),
                ("anxious about something",),
                (
                    "{E} has a big exam tomorrow and keeps pacing the hallway",
                    "{E} is biting {pos} nails before a job interview",
                ),
            ),
            O(
                "calm",
                ("{pr} feels completely calm",),
                ("completely calm",),
                (
                    "{E} is lying in a hammock without a worry in the world",
                    "{E} is relaxed and unbothered after a slow, easy day",
                ),
            ),
        ),
    ),
    ConditionType("motivation_level", "emotional", False, numeric=_scale("motivation")),
    # --- social -----------------------------------------------------------------------------
    ConditionType(
        "company",
        "social",
        True,
        (
            O(
                "alone",
                ("{pr} is alone", "nobody else is home"),
                ("alone in the house",),
                (
                    "Everyone else left for the weekend and {E} has the place to {refl}",
                    "{E} is the one soul left in the flat tonight",
                ),
            ),
            O(
                "guests",
                ("there are guests in the house",),
                ("hosting guests",),
                (
                    "Six dinner visitors just arrived and are hanging up their coats",
                    "The doorbell keeps ringing as friends arrive for a get-together",
                ),
            ),
            O(
                "children",
                ("{pos} nieces and nephews are visiting",),
                ("looking after {pos} nieces and nephews",),
                (
                    "{E}'s sister just dropped off her three kids for the afternoon",
                    "{E}'s brother's children are staying over this weekend",
                ),
            ),
        ),
    ),
    ConditionType(
        "social_setting",
        "social",
        False,
        (
            O(
                "party",
                ("{pr} is at a party",),
                ("at a party",),
                (
                    "{E} is in a crowded living room with balloons and music for a birthday bash",
                    "{E} is at a packed housewarming with dancing in the hall",
                ),
            ),
            O(
                "meeting",
                ("{pr} is in a formal meeting",),
                ("in formal meetings",),
                (
                    "{E} is seated at a boardroom table with the quarterly agenda",
                    "{E} is presenting figures to the board of directors",
                ),
            ),
            O(
                "date",
                ("{pr} is out on a date",),
                ("out on a date",),
                (
                    "{E} is at a candlelit table across from someone {pr} has been seeing for a few weeks",
                    "{E} is sharing a dessert with a new romantic interest",
                ),
            ),
        ),
    ),
    ConditionType(
        "relationship_closeness",
        "social",
        False,
        numeric=Numeric(
            rules=("{pr} has known the person for at least {n} years", "the friendship is {n} years old or more"),
            states=("among friends of {n} years or more",),
            situations=("The person asking has known {E} for {m} years", "I met {E} {m} years ago"),
            at_least=True,
            thresholds=(3, 5, 7, 10),
            span=(1, 15),
        ),
    ),
    # --- task -------------------------------------------------------------------------------
    ConditionType(
        "task_type",
        "task",
        False,
        (
            O(
                "writing",
                ("{pr} is working on a piece of writing",),
                ("absorbed in a piece of writing",),
                ("{E} is drafting chapter four of a novel", "{E} is polishing the wording of a long essay"),
            ),
            O(
                "numbers",
                ("{pr} is doing number-crunching in spreadsheets",),
                ("buried in spreadsheets",),
                (
                    "{E} is reconciling columns of figures for the annual budget",
                    "{E} is building a pivot table of quarterly sales",
                ),
            ),
            O(
                "repair",
                ("{pr} is fixing something with tools",),
                ("fixing things with tools",),
                (
                    "{E} is under the sink with a wrench, replacing a leaky pipe",
                    "{E} is screwing a wobbly table leg back into place",
                ),
            ),
        ),
    ),
    ConditionType(
        "workload",
        "task",
        False,
        numeric=Numeric(
            rules=("{pr} has at least {n} deadlines in the same week",),
            states=("juggling {n} or more deadlines in a week",),
            situations=("{E} has {m} deadlines this week", "There are {m} deadlines on {E}'s calendar this week"),
            at_least=True,
            thresholds=(3, 4, 5),
            span=(0, 8),
        ),
    ),
    ConditionType(
        "completion_state",
        "task",
        False,
        (
            O(
                "finished",
                ("{pr} has just finished a big project",),
                ("fresh off a finished project",),
                (
                    "{E} handed in the final version of a year-long report an hour ago",
                    "{E} just shipped the last piece of a months-long job",
                ),
            ),
            O(
                "midway",
                ("{pr} is in the middle of a project",),
                ("in the middle of a project",),
                (
                    "{E} is halfway through a renovation with half the walls still unpainted",
                    "{E} has a half-built website open and a long list of open tasks",
                ),
            ),
        ),
    ),
    # --- sensory ----------------------------------------------------------------------------
    ConditionType(
        "music_playing",
        "sensory",
        False,
        (
            O(
                "jazz",
                ("jazz is playing",),
                ("listening to jazz",),
                (
                    "A saxophone solo from a Coltrane record is coming through the speakers",
                    "A swing band with a walking double bass is on the stereo",
                ),
            ),
            O(
                "classical",
                ("classical music is playing",),
                ("listening to classical music",),
                ("A Mozart piano concerto is on in the background", "A string quartet by Haydn is playing softly"),
            ),
            O(
                "metal",
                ("heavy metal is playing",),
                ("listening to heavy metal",),
                (
                    "Distorted guitars and screaming vocals are blasting from the stereo",
                    "A thrash band is roaring through the speakers",
                ),
            ),
        ),
    ),
    ConditionType(
        "scent",
        "sensory",
        False,
        (
            O(
                "bread",
                ("the house smells of freshly baked bread",),
                ("in a house that smells of fresh bread",),
                (
                    "A loaf just came out of the oven and its aroma fills the room",
                    "A baguette is cooling on the rack and the whole flat smells of it",
                ),
            ),
            O(
                "lavender",
                ("{pr} can smell lavender",),
                ("surrounded by the scent of lavender",),
                (
                    "A bowl of dried purple flowers from Provence sits right beside {obj}",
                    "Someone sprayed the linen with a Provence flower mist",
                ),
            ),
            O(
                "smoke",
                ("{pr} can smell wood smoke",),
                ("near the smell of wood smoke",),
                (
                    "A log fire is crackling in the hearth nearby",
                    "The neighbours are burning logs in a fire pit next door",
                ),
            ),
        ),
    ),
    ConditionType(
        "food_or_drink_present",
        "sensory",
        True,
        (
            O(
                "black_tea",
                ("someone offers {obj} a cup of black tea",),
                ("being offered a cup of black tea",),
                (
                    "A host just handed {E} a steaming mug of Earl Grey",
                    "Someone set down a pot of strong Assam next to {E}",
                ),
            ),
            O(
                "cake",
                ("there is chocolate cake on the table",),
                ("near a chocolate cake",),
                (
                    "A slice of rich fudge gateau is sitting on the table",
                    "A dark cocoa sponge with ganache was just brought out",
                ),
            ),
            O(
                "cheese",
                ("there is cheese within reach",),
                ("near a wedge of cheese",),
                ("A chunk of cheddar was left on the counter", "A board of brie and gouda is on the low table"),
            ),
            O("biscuits", (), (), ("Someone offered {E} a plate of biscuits but no drinks",)),
        ),
    ),
    # --- relational -------------------------------------------------------------------------
    ConditionType(
        "conflict_state",
        "relational",
        False,
        (
            O(
                "argued",
                ("{pr} has just had an argument with someone",),
                ("fresh from an argument",),
                (
                    "{E} just finished a shouting match with {pos} landlord",
                    "{E} and {pos} brother just had a blazing row",
                ),
            ),
            O(
                "peaceful",
                ("everyone around {obj} is getting along",),
                ("among people who are getting along",),
                (
                    "{E} has had a perfectly friendly, drama-free day with everyone",
                    "{E}'s household has been calm and cooperative all week",
                ),
            ),
        ),
    ),
    ConditionType(
        "approval_received",
        "relational",
        False,
        (
            O(
                "praised",
                ("someone has just praised {pos} work",),
                ("on the receiving end of praise for {pos} work",),
                (
                    "{E}'s manager just told the whole team that {pos} report was outstanding",
                    "The guildmaster just gave {E} a thumbs-up",
                ),
            ),
            O(
                "criticized",
                ("someone has just criticized {pos} work",),
                ("on the receiving end of criticism of {pos} work",),
                (
                    "{E}'s editor just sent back the draft covered in red ink and complaints",
                    "A client just told {E} the design is a mess",
                ),
            ),
            O("ignored", (), (), ("Nobody has said a word about {E}'s work all week",)),
        ),
    ),
    ConditionType(
        "request_made",
        "relational",
        False,
        (
            O(
                "asked",
                ("someone has asked {obj} for a favour",),
                ("being asked for a favour",),
                (
                    "A neighbour just knocked and asked {E} to help out with something",
                    "A friend just phoned {E} begging for a hand",
                ),
            ),
            O(
                "unasked",
                ("nobody has asked {obj} for anything",),
                ("left to {pos} own devices",),
                (
                    "Nobody has requested a single thing from {E} all day",
                    "{E} hasn't had one request from anyone since Monday",
                ),
            ),
        ),
    ),
    # --- habitual ---------------------------------------------------------------------------
    ConditionType(
        "prior_activity",
        "habitual",
        True,
        (
            O(
                "walk",
                ("{pr} has just come back from a long walk",),
                ("back from a long walk",),
                (
                    "{E} just got back from an hour-long stroll around the park",
                    "{E} just trotted in after two laps of the neighbourhood",
                ),
            ),
            O(
                "nap",
                ("{pr} has just woken up from a nap",),
                ("just waking up from a nap",),
                (
                    "{E} opened {pos} eyes a minute ago after a long snooze on the sofa",
                    "{E} is yawning after dozing for an hour in the afternoon",
                ),
            ),
            O(
                "bath",
                ("{pr} has just had a bath",),
                ("fresh out of the bath",),
                (
                    "{E} is still damp and wrapped in a towel after a soak in the tub",
                    "{E} is dripping wet after a good scrub in the tub",
                ),
            ),
        ),
    ),
    ConditionType(
        "frequency_cap",
        "habitual",
        False,
        numeric=Numeric(
            rules=("{pr} has done it fewer than {n} times that week",),
            states=("having done it fewer than {n} times in a week",),
            situations=("{E} has already done it {m} times this week", "So far this week {E} has done it {m} times"),
            at_least=False,
            thresholds=(2, 3, 4),
            span=(0, 6),
        ),
    ),
    ConditionType(
        "streak_state",
        "habitual",
        False,
        numeric=Numeric(
            rules=("{pr} has kept a workout streak going for at least {n} days",),
            states=("on a workout streak of {n} days or more",),
            situations=(
                "{E} has worked out {m} days in a row now",
                "This is day {m} of {E}'s unbroken run of daily workouts",
            ),
            at_least=True,
            thresholds=(5, 7, 10),
            span=(1, 15),
        ),
    ),
)

TYPES = {kind.name: kind for kind in CONDITION_TYPES}
GROUPS = tuple(dict.fromkeys(kind.group for kind in CONDITION_TYPES))
