"""Word lists of the synthetic lives: people, places, things, events, cues, everyday scenes.

Plain data only. Items and cues contain no commas and no " and ", so a list of them can be
written and read back as "a, b and c". Nothing here is specific to one item or one life;
the generator samples from these lists with the life's own random stream.
"""

from __future__ import annotations

NAMES = (
    "Marta",
    "Ivo",
    "Sigrun",
    "Tobias",
    "Elin",
    "Anders",
    "Rasmus",
    "Ylva",
    "Henrik",
    "Saga",
    "Jonas",
    "Linnea",
    "Petter",
    "Astrid",
    "Oskar",
    "Frida",
    "Emil",
    "Nora",
    "Viggo",
    "Ingrid",
    "Leif",
    "Karin",
    "Hedda",
    "Arvid",
    "Malin",
    "Sten",
    "Tove",
    "Gustav",
    "Wilma",
    "Halvard",
)

#: how the narrator relates to each member of the cast (one of each per life)
ROLES = ("my sister", "my oldest friend", "my colleague", "my neighbour", "my partner", "my cousin")

PRESENT_PLACES = (
    "Harbor Market",
    "the ferry terminal",
    "Café Lindqvist",
    "the public library",
    "Nordby Station",
    "the allotment garden",
    "my kitchen",
    "the swimming hall",
    "the bakery on Dock Road",
    "the old cinema",
    "the pier",
    "the hardware store",
    "the hospital corridor",
    "my office on Kellgren Street",
    "the flea market",
    "the bus depot",
)

#: places where exchanges happen (a subset with shops or counters)
EXCHANGE_PLACES = (
    "Harbor Market",
    "Café Lindqvist",
    "the bakery on Dock Road",
    "the flea market",
    "the hardware store",
    "the ferry terminal",
    "the public library",
    "the pier",
)

CHILDHOOD_PLACES = (
    "the boathouse",
    "the quarry lake",
    "my grandmother's farm",
    "the schoolyard",
    "our flat on Vass Lane",
    "the fairground",
    "the church hall",
    "the harbour wall",
    "the fishing hut",
    "the moor",
)

ITEMS = (
    "saffron",
    "lemons",
    "a wool scarf",
    "a jar of cloudberry jam",
    "a pocket knife",
    "rye bread",
    "a paperback atlas",
    "dried figs",
    "a tin of sardines",
    "black tea",
    "a blue notebook",
    "a potted basil",
    "smoked mackerel",
    "a harmonica",
    "beeswax candles",
    "a jar of honey",
    "oat biscuits",
    "a sketchbook",
    "reading glasses",
    "a thermos flask",
    "wool socks",
    "a chess set",
    "dark chocolate",
    "a deck of cards",
    "green apples",
    "a silver ring",
    "a fountain pen",
    "a ball of yarn",
    "a box of matches",
    "sourdough bread",
    "pickled herring",
    "yellow tulips",
    "a copper kettle",
    "a map of the archipelago",
    "a tide table",
    "a straw hat",
    "a fishing lure",
    "a paper kite",
    "a brass compass",
    "a jigsaw puzzle",
    "a bottle of cider",
    "a linen apron",
    "cardamom buns",
    "a flower bulb",
    "a bicycle bell",
)

#: events in the lives of the cast, as they are written after the person's name
CAST_EVENTS = (
    "lost the job at the shipyard",
    "won the rowing race",
    "moved into a flat by the canal",
    "broke an ankle on the ice",
    "passed the driving test",
    "sold the old sailboat",
    "started night classes in welding",
    "came back from a year in Lisbon",
    "had a fight with the landlord",
    "got engaged",
    "adopted a grey cat",
    "lost a wallet on the ferry",
    "finished the thesis at last",
    "opened a stall at the flea market",
)

#: what a cast member says when telling the narrator about one of the events above
EVENT_LINES = {
    "lost the job at the shipyard": "They let me go at the shipyard today.",
    "won the rowing race": "We won the race by half a boat length!",
    "moved into a flat by the canal": "The new flat by the canal is finally mine.",
    "broke an ankle on the ice": "I slipped on the ice and the ankle is broken.",
    "passed the driving test": "I passed the driving test on the first try.",
    "sold the old sailboat": "The old sailboat is sold. It feels strange.",
    "started night classes in welding": "I signed up for night classes in welding.",
    "came back from a year in Lisbon": "I am back from Lisbon, and it is cold here.",
    "had a fight with the landlord": "The landlord and I had a terrible row.",
    "got engaged": "We are engaged! Nobody knows yet.",
    "adopted a grey cat": "I adopted a grey cat from the shelter.",
    "lost a wallet on the ferry": "My wallet is gone. I left it on the ferry.",
    "finished the thesis at last": "The thesis is finished. I handed it in today.",
    "opened a stall at the flea market": "I have my own stall at the flea market now.",
}

#: sensory cues by modality: (how a unit's environment says it, the cue object)
CUES = {
    "smell": ("diesel", "wet wool", "burnt sugar", "pine tar", "lilacs", "fresh paint", "woodsmoke", "oranges"),
    "sound": ("church bells", "a foghorn", "an accordion", "rain on a tin roof", "a ship's horn", "a creaking swing"),
    "sight": (
        "a red kite in the sky",
        "a yellow tractor",
        "a blue rowing boat",
        "frost on the window",
        "a paper lantern",
    ),
    "taste": ("salt liquorice", "cardamom", "blackcurrant juice", "cold milk"),
    "touch": ("rough rope", "cold brass", "a wool blanket", "wet sand"),
}

#: the verb an environment sentence uses for each modality ("I smell diesel.")
PERCEIVE = {"smell": "smell", "sound": "hear", "sight": "see", "taste": "taste", "touch": "feel"}

#: update-paradox attributes: (attribute, the childhood state, the present state)
ATTRIBUTES = (
    ("favourite drink", "cocoa", "black coffee"),
    ("favourite place", "the hayloft", "the reading room of the library"),
    ("dream job", "lighthouse keeper", "ship's engineer"),
    ("favourite season", "deep winter", "late summer"),
    ("favourite food", "fried herring", "lentil soup"),
    ("hobby", "collecting beetles", "rowing"),
    ("favourite sound", "the rain on the barn roof", "the harbour at night"),
)

#: two-ended everyday scenes for duration questions: (place, start action, middle action, end action)
SCENES = (
    (
        "the allotment garden",
        "I start repainting the fence",
        "I stop to scrape off an old nail",
        "I put the brushes away",
    ),
    (
        "the ferry terminal",
        "the ferry pulls away from the quay",
        "I buy tea from the kiosk on deck",
        "the ferry docks at Lindo",
    ),
    ("my kitchen", "I put the bread dough in the oven", "I wash the mixing bowls", "I take the loaf out of the oven"),
    (
        "the swimming hall",
        "I dive in for the first length",
        "I rest at the shallow end",
        "I climb out after the last length",
    ),
    (
        "the public library",
        "I sit down with the old harbour records",
        "I copy out a list of ship names",
        "the librarian announces closing time",
    ),
    (
        "the hardware store",
        "I join the queue at the paint counter",
        "the clerk mixes the colour",
        "I carry the paint tins to the car",
    ),
    (
        "Nordby Station",
        "the train to the coast is announced as delayed",
        "I eat a sandwich on the bench",
        "the train to the coast finally arrives",
    ),
    ("the pier", "I cast the first line off the pier", "a gull steals my bait", "I reel in the only fish of the day"),
    (
        "the hospital corridor",
        "I sit down outside the X-ray room",
        "a porter wheels a bed past",
        "the nurse calls my name",
    ),
    (
        "the old cinema",
        "the lights go down for the film",
        "the projector stalls for a minute",
        "the credits start to roll",
    ),
)

#: duration options for scenes, in seconds (minutes and hours, sometimes with seconds)
SCENE_DURATIONS = (420, 520, 720, 900, 1500, 1800, 2400, 2650, 3900, 5400, 8100)

#: filler moments with no question: (place, action, environment)
FILLER = (
    ("the canal path", "I walk along the canal on my way home.", "I see ducks asleep on the ice."),
    ("my balcony", "I water the tomatoes on the balcony.", "I hear the neighbours arguing faintly."),
    ("my hallway", "I sort the post and throw most of it away.", "I see rain streaking the window."),
    ("the harbour road", "I take the long way to work.", "I feel a cold wind off the sea."),
    ("my hallway", "I fix the chain of my bicycle.", "I smell oil on my fingers."),
    ("my bedroom", "I read the newspaper in bed.", "I hear the radiator ticking."),
    ("my kitchen", "I call the dentist to move my appointment.", "I see snow on the roofs."),
    ("my kitchen", "I iron shirts for the week.", "I hear a tram bell outside."),
    ("Nordby Station", "I buy stamps at the kiosk.", "I see the queue reaching the door."),
    ("my bathroom", "I clean out the bathroom cabinet.", "I smell old soap."),
    ("my kitchen", "I make porridge before dawn.", "I hear the kettle start to whistle."),
    ("the cemetery", "I walk the dog around the cemetery.", "I see crows on the wall."),
)
