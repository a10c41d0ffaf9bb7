"""Word lists of the inner life: recalled episodes, severity scales, mismatches, principles.

Plain data only. A severity scale lists its phrases from least to most; the offline reader
ranks by the same scale, which is general knowledge (a broken wrist is worse than a
scraped elbow), not anything about an item.
"""

from __future__ import annotations

from typing import TypedDict

#: recalled childhood episodes: (title, place, [(action, dialogue, environment, inner thought), ...])
RECALLS = (
    (
        "the winter my father sold the boat",
        "the boathouse",
        (
            (
                "My father signs the papers on the bonnet of the truck.",
                'A stranger says, "She is a good boat."',
                "I see ice along the slipway.",
                "I count the rivets on the hull so I do not have to look at him.",
            ),
            (
                "The new owner tows the boat away across the ice.",
                "",
                "I see the trailer lights vanish behind the point.",
                "I decide that I will own a boat one day.",
            ),
        ),
    ),
    (
        "the summer my grandmother taught me to swim",
        "the quarry lake",
        (
            (
                "My grandmother holds me under the belly in the green water.",
                'She says, "Kick, kick, do not think."',
                "I feel the sun on my shoulders.",
                "I am sure I will sink.",
            ),
            (
                "I swim three strokes alone and she claps.",
                "",
                "I hear dragonflies over the reeds.",
                "I feel taller than the quarry walls.",
            ),
        ),
    ),
    (
        "the night the barn burned",
        "my grandmother's farm",
        (
            (
                "We carry buckets from the well in a line.",
                'My uncle shouts, "Let the hay go, save the horse!"',
                "I see sparks climbing into the dark.",
                "I am more fascinated than frightened, and ashamed of it.",
            ),
            (
                "The roof falls in and everybody steps back.",
                "",
                "I smell wet ash everywhere.",
                "I hold the horse's halter until my hands cramp.",
            ),
        ),
    ),
    (
        "my first day at the village school",
        "the schoolyard",
        (
            (
                "I stand at the fence with my new satchel.",
                'The teacher says, "You must be the new one."',
                "I hear children chanting a skipping rhyme.",
                "I wish I could turn invisible.",
            ),
            (
                "A girl shares her apple with me at the break.",
                "",
                "I see chalk drawings on the asphalt.",
                "I decide that school might be bearable.",
            ),
        ),
    ),
    (
        "the spring my uncle left for the oil rigs",
        "our flat on Vass Lane",
        (
            (
                "My uncle packs his duffel bag on the kitchen floor.",
                'He says, "I will send you a postcard from the North Sea."',
                "I see his boots by the door.",
                "I pretend to be busy with my homework.",
            ),
            (
                "I watch from the window as the taxi turns the corner.",
                "",
                "I hear the taxi door slam.",
                "The flat feels twice as big and half as warm.",
            ),
        ),
    ),
    (
        "the day I got lost at the autumn fair",
        "the fairground",
        (
            (
                "I let go of my mother's hand to look at the carousel.",
                "",
                "I see a thousand legs and no faces.",
                "Panic rises in my throat like water.",
            ),
            (
                "A woman selling candyfloss walks me to the lost-children tent.",
                'She says, "Your mother is coming, little one."',
                "I hear my name on the loudspeaker.",
                "I am relieved and embarrassed at once.",
            ),
        ),
    ),
    (
        "the Christmas the power failed",
        "our flat on Vass Lane",
        (
            (
                "We eat the cold ham by candlelight.",
                'My mother laughs, "This is how Christmas used to be."',
                "I see our breath in the cold room.",
                "I have never loved my family so much.",
            ),
            (
                "My father tells ghost stories until midnight.",
                "",
                "I hear the wind in the chimney.",
                "I wish the power would stay off forever.",
            ),
        ),
    ),
    (
        "the morning we found the fox in the henhouse",
        "my grandmother's farm",
        (
            (
                "I open the henhouse door and feathers are everywhere.",
                'My grandmother says, "Do not cry, it is only nature."',
                "I smell blood and straw.",
                "I cry anyway, behind the woodpile.",
            ),
            (
                "We bury the hens under the apple tree.",
                "",
                "I see the fox's tracks in the frost.",
                "I hate the fox and admire it.",
            ),
        ),
    ),
    (
        "the evening my mother sang at the church hall",
        "the church hall",
        (
            (
                "My mother steps onto the little stage in her green dress.",
                "",
                "I hear the piano start too fast.",
                "I am terrified she will forget the words.",
            ),
            (
                "The hall stands up to applaud her.",
                'A neighbour says, "I never knew she could sing."',
                "I see my father wiping his eyes.",
                "I am so proud I cannot speak.",
            ),
        ),
    ),
    (
        "the week I had scarlet fever",
        "our flat on Vass Lane",
        (
            (
                "I lie in the dark room with the curtains drawn.",
                'The doctor says, "Keep her in bed a week."',
                "I feel the sheets burning.",
                "The wallpaper flowers seem to move.",
            ),
            (
                "My father reads me the same sea story every night.",
                "",
                "I hear his voice change for each sailor.",
                "I want the fever to last so the stories will not stop.",
            ),
        ),
    ),
    (
        "the afternoon I broke the schoolroom window",
        "the schoolyard",
        (
            (
                "My football smashes the window of the classroom.",
                'The caretaker shouts, "Who did this?"',
                "I see glass glittering on the desks.",
                "My heart hammers so hard I can hear it.",
            ),
            (
                "I stay silent while another boy is blamed.",
                "",
                "I hear the headmaster's door close.",
                "The silence sits in my stomach for weeks.",
            ),
        ),
    ),
    (
        "the storm that sank the Nilsen boat",
        "the harbour wall",
        (
            (
                "We stand on the harbour wall in oilskins, watching the sea.",
                'A fisherman says, "Nobody goes out in this."',
                "I hear waves booming against the stones.",
                "I have never seen the sea so angry.",
            ),
            (
                "The Nilsen brothers are pulled out of the water alive.",
                "",
                "I see their boat upside down by the rocks.",
                "I learn that the sea does not care about anyone.",
            ),
        ),
    ),
    (
        "the first time I rowed alone to the island",
        "the fishing hut",
        (
            (
                "I push the rowing boat off the shingle by myself.",
                "",
                "I see the island like a whale on the water.",
                "Nobody knows where I am, and I love it.",
            ),
            (
                "I land on the island and eat my sandwiches on a rock.",
                "",
                "I hear only gulls and my own breathing.",
                "I feel like the first person in the world.",
            ),
        ),
    ),
    (
        "the summer we picked cloudberries on the moor",
        "the moor",
        (
            (
                "We walk across the moor with buckets and mosquito nets.",
                'My aunt says, "The best ones are always further out."',
                "I see the bog cotton waving.",
                "My legs ache but I do not complain.",
            ),
            (
                "We fill six buckets and sing on the way home.",
                "",
                "I taste cloudberries warm from the sun.",
                "I think this is what happiness tastes like.",
            ),
        ),
    ),
)

#: severity scales for ordering questions, least to most, and the events each can describe
SEVERITY = {
    "danger": {
        "question": "how badly I was hurt, from least to most",
        "phrases": (
            "I walk away without a scratch",
            "I scrape my elbow",
            "I sprain my ankle",
            "I need four stitches in my hand",
            "I break my wrist",
            "I spend two nights in the hospital",
            "I need surgery on my leg",
        ),
        "events": (
            "the ladder slips while I clean the gutters",
            "a car clips my bicycle on Dock Road",
            "I fall through the ice on the quarry lake",
            "the boom swings across the deck into me",
            "a dog lunges at me at the allotment",
            "I slip on the wet stairs at Nordby Station",
            "a shelf collapses on me in the storeroom",
            "the chainsaw kicks back while I cut firewood",
            "I trip over a mooring rope on the pier",
            "a wave knocks me off the breakwater",
        ),
    },
    "blame": {
        "question": "how much of the fault was mine, from least to most",
        "phrases": (
            "none of the fault is mine",
            "only a tiny part of the fault is mine",
            "a small part of the fault is mine",
            "half of the fault is mine",
            "most of the fault is mine",
            "almost all of the fault is mine",
            "the fault is entirely mine",
        ),
        "events": (
            "the dinghy drifts away from the jetty",
            "the soup burns while the guests wait",
            "we miss the last ferry home",
            "the borrowed camera gets scratched",
            "the basement floods during the storm",
            "the dinner reservation is lost",
            "the dog escapes from the garden",
            "the car battery dies on the mountain road",
            "the house keys end up locked in the car",
            "the tent collapses in the night",
        ),
    },
    "intensity": {
        "question": "how angry I became, from least to most",
        "phrases": (
            "I shrug it off",
            "I feel a flicker of irritation",
            "I grumble under my breath",
            "I raise my voice",
            "I slam the door so hard the glass rattles",
            "I shout until my throat is raw",
            "I throw a chair across the room",
        ),
        "events": (
            "the neighbour's music wakes me at three",
            "the bank charges me twice for the same rent",
            "my bicycle is stolen outside the library",
            "a colleague takes credit for my report",
            "the plumber fails to show up again",
            "the landlord raises the rent without notice",
            "someone dents my car and drives off",
            "the council cuts down the old oak on my street",
            "the airline loses my suitcase",
            "a stranger kicks my dog",
        ),
    },
}

#: behaviour / inner-state mismatches: (outward behaviour with {X}, inner state with its metaphor,
#: context, core elements (outward words, inner-state words, metaphor words), place)
MISMATCHES = (
    (
        "laugh and tell {X} that the promotion means nothing to me",
        "Envy burns in me; I am a candle someone forgot to blow out.",
        "{X} got the promotion I applied for.",
        (("laugh",), ("envy", "envious", "jealous", "jealousy"), ("candle",)),
        "my office on Kellgren Street",
    ),
    (
        "hum cheerfully while I pack {X}'s boxes",
        "I am terrified of the empty flat; the silence waiting for me is a cold lake.",
        "{X} is moving out of our flat.",
        (("hum", "cheerful"), ("terrified", "fear", "afraid", "scared"), ("lake",)),
        "my kitchen",
    ),
    (
        "insist on paying for everyone's dinner with {X}",
        "I feel small and poor; paying is a coat I wear to hide the holes.",
        "I have been out of work for two months.",
        (("pay", "paying"), ("small", "poor", "ashamed", "shame"), ("coat",)),
        "Café Lindqvist",
    ),
    (
        "scold {X} for coming home late",
        "I am flooded with relief; my anger is a lid on a boiling pot.",
        "{X} was out in the storm without a phone.",
        (("scold",), ("relief", "relieved"), ("lid",)),
        "my hallway",
    ),
    (
        "tell {X} I am too busy to visit the care home",
        "I am afraid to see how frail {X} has become; staying away is a bandage over a wound I will not look at.",
        "{X} moved into the care home in spring.",
        (("busy",), ("afraid", "fear", "frail"), ("bandage", "wound")),
        "my kitchen",
    ),
    (
        "joke through the whole funeral reception with {X}",
        "Grief floods me; every joke is a sandbag against the water.",
        "My godfather died last week.",
        (("joke",), ("grief", "grieving"), ("sandbag",)),
        "the community hall",
    ),
    (
        "clean the whole flat at midnight while {X} sleeps",
        "I cannot stop the layoffs at work; scrubbing is the only wheel I can still steer.",
        "Half of my department is being laid off.",
        (("clean", "scrub", "scrubbing"), ("helpless", "powerless", "control"), ("wheel",)),
        "my kitchen",
    ),
    (
        "smile and wave as {X}'s train leaves",
        "Loneliness opens under me; I am a pier after the boats have gone.",
        "{X} is leaving for a year abroad.",
        (("smile", "wave"), ("lonely", "loneliness"), ("pier",)),
        "Nordby Station",
    ),
    (
        "refuse the prize money in front of {X} and everyone",
        "I feel like an impostor; taking it would be wearing a medal I stole.",
        "The prize was for a project that {X} mostly did.",
        (("refuse",), ("impostor", "fraud", "undeserving"), ("medal",)),
        "the public library",
    ),
    (
        "pick a fight with {X} over the dishes",
        "I am frightened by how much I need {X}; the quarrel is a fence I build so I cannot fall.",
        "{X} has talked about taking a job in another city.",
        (("fight", "quarrel"), ("frightened", "afraid", "need"), ("fence",)),
        "my kitchen",
    ),
    (
        "walk twice around the block before knocking on {X}'s door",
        "Shame holds my feet; the door is a mirror I do not want to face.",
        "I forgot {X}'s fortieth birthday.",
        (("walk", "block"), ("shame", "ashamed"), ("mirror",)),
        "the canal path",
    ),
    (
        "eat nothing at {X}'s wedding and say I am full",
        "Nerves knot my stomach; the speech I must give is a cliff edge.",
        "I must give the first speech at the wedding.",
        (("eat", "full"), ("nervous", "nerves", "anxious"), ("cliff",)),
        "the town hall",
    ),
    (
        "keep checking my phone while {X} talks",
        "I am sick with worry about the biopsy; every minute is a held breath.",
        "The biopsy result is due today.",
        (("phone",), ("worry", "worried", "biopsy"), ("breath",)),
        "Café Lindqvist",
    ),
    (
        "laugh loudly at {X}'s engagement party",
        "I still love {X}; the laughter is wallpaper over a crack.",
        "{X} and I were together for six years.",
        (("laugh",), ("love",), ("wallpaper", "crack")),
        "the harbour restaurant",
    ),
    (
        "offer to drive {X} to the airport at four in the morning",
        "Guilt over our quarrel drives me; the favour is a coin I pay toward an old debt.",
        "{X} and I quarrelled badly last spring.",
        (("drive", "airport"), ("guilt", "guilty"), ("coin",)),
        "the harbour road",
    ),
    (
        "praise {X}'s terrible painting at the gallery",
        "Pity and tenderness mix in me; the praise is a blanket I throw over a shivering dog.",
        "{X} has spent every evening of the year on the painting.",
        (("praise",), ("pity", "tenderness", "tender"), ("blanket",)),
        "the gallery on Dock Road",
    ),
)


class Principle(TypedDict):
    domain: str
    #: actions that show the principle, "{X}" standing for a person
    episodes: tuple[str, ...]
    inner: str
    origin: str
    #: (action, feeling) of the recalled origin
    origin_unit: tuple[str, str]
    core: tuple[tuple[str, ...], ...]


#: lasting principles: domain word of the question, the episodes that show it ({X} is a cast
#: member), the inner sentence with its metaphor, the origin title, the origin unit and its
#: feeling, and the core elements (principle words, metaphor words, origin words)
PRINCIPLES: tuple[Principle, ...] = (
    {
        "domain": "money",
        "episodes": (
            "turn down {X}'s offer to lend me money for the deposit",
            "sell my bicycle rather than ask {X} for a loan",
            "pay {X} back the same evening to the last coin",
        ),
        "inner": "A debt is a rope around the neck; I will not tie it myself.",
        "origin": "the winter the bailiffs took our furniture",
        "origin_unit": (
            "Two men carry our sofa down the stairs while my mother signs a paper.",
            "I burn with shame while the neighbours watch from their windows.",
        ),
        "core": (("debt", "borrow", "owe", "loan", "lend"), ("rope",), ("shame", "ashamed", "bailiffs")),
    },
    {
        "domain": "honesty",
        "episodes": (
            "tell my boss and {X} that the mistake in the report was mine",
            "admit to {X} that I forgot our anniversary",
            "tell {X} about the crack in the hull before the sale",
        ),
        "inner": "A lie is a stone in the shoe; it only grows heavier with every step.",
        "origin": "the summer I let my cousin take the blame",
        "origin_unit": (
            "My cousin is punished for the window I broke, and I say nothing.",
            "Guilt keeps me awake for weeks.",
        ),
        "core": (("truth", "honest", "honesty", "lie", "admit"), ("stone",), ("guilt", "guilty", "blame")),
    },
    {
        "domain": "people who are weaker",
        "episodes": (
            "step between a drunk man and the young cashier while {X} watches",
            "report the landlord who bullies {X}",
            "stay after the meeting to defend {X}, the new apprentice",
        ),
        "inner": "Standing aside is a door closed on someone out in the cold.",
        "origin": "the day I watched the Lund boys beat a smaller kid",
        "origin_unit": (
            "I hide behind the bike shed while the Lund boys kick a smaller kid.",
            "Cowardice tastes like metal in my mouth.",
        ),
        "core": (("defend", "protect", "stand up", "weaker"), ("door",), ("coward", "cowardice")),
    },
    {
        "domain": "unfinished work",
        "episodes": (
            "stay up all night to finish the cabinet I promised {X}",
            "walk the last ten kilometres of the race with {X} despite a blister",
            "finish repainting {X}'s boathouse in the rain",
        ),
        "inner": "An unfinished job is a ghost that follows me from room to room.",
        "origin": "the years my father's boat rotted half-built in the yard",
        "origin_unit": (
            "I walk past the grey half-built hull on my way to school.",
            "Disappointment settles over the yard like fog.",
        ),
        "core": (("finish", "finished", "complete"), ("ghost",), ("disappointment", "disappointed", "half-built")),
    },
    {
        "domain": "independence",
        "episodes": (
            "move the heavy wardrobe alone rather than call {X}",
            "refuse {X}'s offer to manage my savings",
            "take the night ferry alone instead of waiting for {X}",
        ),
        "inner": "Depending on others is a leash, however soft it is.",
        "origin": "the years my mother asked my grandfather for every coin",
        "origin_unit": (
            "My mother stands in my grandfather's study asking for the rent money.",
            "I feel her humiliation as if it were mine.",
        ),
        "core": (
            ("independence", "independent", "alone", "depend", "myself"),
            ("leash",),
            ("humiliation", "humiliated"),
        ),
    },
    {
        "domain": "promises",
        "episodes": (
            "cancel my trip to Lisbon to help {X} move as I promised",
            "drive four hours to {X}'s concert because I said I would",
            "keep {X}'s secret even when my sister presses me",
        ),
        "inner": "A broken promise is a crack in the ice I have to walk on.",
        "origin": "the birthday my father promised to come and never did",
        "origin_unit": (
            "I wait at the window in my best shirt until it is dark.",
            "The loneliness of that evening never quite leaves me.",
        ),
        "core": (("promise", "promised", "my word"), ("ice",), ("lonely", "loneliness", "waited", "wait")),
    },
)
