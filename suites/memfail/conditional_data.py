"""Entities, behaviours, sentence templates and filler sentences of Conditional-Facts.

Behaviours are base-form verb phrases ({pos} is the entity's possessive); they are unique
within a dataset, so a behaviour identifies its rule in a shared store. Fillers are
unconditional facts about the entity (paper D.1.1 rule 2) and never mention a condition.
"""

from __future__ import annotations

#: (name, pronoun) of people, storybook characters and pets (with their species)
PEOPLE = tuple(
    (name, "she" if i % 2 else "he")
    for i, name in enumerate(
        "Sylas Amara Thorne Marisol Eldon Priya Marek Yusra Dorian Ines Caspian Leonie Tobias Noor Felix "
        "Hanna Rafael Odette Anselm Mireille Jasper Talia Cormac Ilse Bastian Zofia Emrys Carys Hollis Neve "
        "Lazlo Rosalind Osric Delphine Quentin Saoirse Magnus Elodie Ignatius Wren Barnaby Aurora Desmond "
        "Fenella Horatio Isolde Leopold Maeve Percival Sunniva Alaric Beatrix Crispin Dagny Evander Flora "
        "Gideon Hester Ivo Juniper".split()
    )
)
CHARACTERS = tuple(
    (name, pronoun)
    for name, pronoun in (
        ("Captain Aurelio", "he"),
        ("Lady Wintermere", "she"),
        ("Professor Quill", "he"),
        ("Madame Oriel", "she"),
        ("Sir Bramble", "he"),
        ("Granny Moss", "she"),
        ("Old Tam", "he"),
        ("Duchess Vell", "she"),
        ("Brother Anselmo", "he"),
        ("Aunt Petunia", "she"),
        ("Doctor Fennick", "he"),
        ("Mistress Rook", "she"),
        ("Captain Marlowe", "he"),
        ("Lady Astrid", "she"),
        ("Baron Hollow", "he"),
        ("Sister Clementine", "she"),
        ("Master Pell", "he"),
        ("Queen Isadora", "she"),
        ("Uncle Barty", "he"),
        ("Nurse Tilly", "she"),
        ("Admiral Crane", "he"),
        ("Countess Lune", "she"),
        ("Father Ambrose", "he"),
        ("Widow Hawthorn", "she"),
        ("Judge Ferris", "he"),
        ("Miss Pemberly", "she"),
    )
)
PETS = tuple(
    (name, pronoun, species)
    for name, pronoun, species in (
        ("Mochi", "she", "tabby cat"),
        ("Biscuit", "he", "corgi"),
        ("Pixel", "he", "black cat"),
        ("Nacho", "he", "terrier"),
        ("Juno", "she", "greyhound"),
        ("Pudding", "she", "Persian cat"),
        ("Rascal", "he", "beagle"),
        ("Clover", "she", "ginger cat"),
        ("Waffles", "he", "dachshund"),
        ("Tofu", "she", "Siamese cat"),
        ("Bruno", "he", "collie"),
        ("Olive", "she", "pug"),
        ("Pepper", "she", "calico cat"),
        ("Ziggy", "he", "spaniel"),
        ("Noodle", "he", "poodle"),
        ("Saffron", "she", "Maine Coon"),
        ("Bingo", "he", "Labrador"),
        ("Marzipan", "she", "ragdoll cat"),
        ("Rusty", "he", "setter"),
        ("Luna", "she", "husky"),
        ("Crumpet", "he", "basset hound"),
        ("Miso", "she", "tortoiseshell cat"),
        ("Gizmo", "he", "chihuahua"),
        ("Dumpling", "she", "shiba inu"),
        ("Tiberius", "he", "Bengal cat"),
        ("Kipper", "he", "Jack Russell"),
        ("Sorbet", "she", "Birman cat"),
        ("Otis", "he", "bulldog"),
        ("Fig", "she", "whippet"),
        ("Mango", "he", "Abyssinian cat"),
    )
)

PERSON_BEHAVIORS = (
    "sketch floor plans of imaginary houses",
    "re-read old letters from {pos} grandmother",
    "hum sea shanties while doing the dishes",
    "send voice notes instead of texts",
    "reorganize {pos} bookshelf by colour",
    "bake lemon bars for the neighbours",
    "write haiku on sticky notes",
    "polish {pos} collection of brass doorknobs",
    "play the harmonica on the balcony",
    "draw elaborate maps of fictional islands",
    "rearrange the living-room furniture",
    "call {pos} aunt in Lisbon",
    "knit tiny scarves for {pos} houseplants",
    "build miniature clockwork automatons",
    "recite a two-line naval proverb",
    "paint tiny sailboats inside used teacups",
    "do a private victory jig",
    "write a postcard to {pos} childhood teacher",
    "give away carved wooden coins",
    "press wildflowers between the pages of old atlases",
    "practise card tricks in front of the mirror",
    "make a pot of cardamom coffee",
    "alphabetize the spice rack",
    "sing opera arias in the shower",
    "sort {pos} vinyl records by release year",
    "cook a huge pot of lentil soup",
    "draft long letters to the local newspaper",
    "fold origami cranes out of receipts",
    "restring {pos} old banjo",
    "tidy the garden shed",
    "watch old silent films",
    "repaint the front door",
    "write in a leather-bound dream journal",
    "make paper lanterns",
    "whistle old swing standards",
    "teach {pos} parrot new words",
    "photograph doorways around town",
    "juggle tangerines",
    "repot {pos} cactus collection",
    "sew patches onto {pos} denim jacket",
    "memorize poems by Rilke",
    "clean {pos} bicycle chain",
    "write thank-you cards",
    "play chess against {refl}",
    "build a blanket fort",
    "brew ginger beer",
    "carve small wooden birds",
    "draw caricatures of {pos} coworkers",
    "tune the old piano in the hallway",
    "host a board-game night",
    "update {pos} birdwatching log",
    "make a playlist for a friend",
    "frame old concert tickets",
    "learn a new magic trick",
    "shine {pos} leather boots",
    "rewrite {pos} to-do list in calligraphy",
    "recite the periodic table out loud",
    "make bitter orange marmalade",
    "plant herbs in window boxes",
    "paint watercolour postcards",
    "write letters to {pos} future self",
    "do a crossword in pen",
    "darn old socks",
    "feed the ducks at the canal",
    "sketch strangers on the tram",
    "balance {pos} chequebook to the penny",
    "tell long stories about {pos} sailing days",
    "play the accordion for the neighbours",
    "dust {pos} collection of snow globes",
    "rewatch {pos} favourite cooking show",
    "build towers out of dominoes",
    "make fresh pasta by hand",
    "write song lyrics on napkins",
    "iron every shirt in the wardrobe",
    "translate old poems into Spanish",
    "paint {pos} fingernails bright green",
    "clean the aquarium",
    "sharpen all of {pos} pencils",
    "make a scrapbook page",
    "phone {pos} old college roommate",
    "go through {pos} box of old photographs",
    "compose short piano pieces",
    "bind small notebooks by hand",
    "try on {pos} vintage hats",
    "record birdsong on {pos} phone",
    "rearrange the fridge magnets",
    "stack firewood behind the cottage",
    "mend broken umbrellas",
    "read tarot cards for friends",
    "make candles from old wax",
)
PET_BEHAVIORS = (
    "drag a catnip mouse into the laundry basket",
    "stare at birds through the glass door",
    "bark at passers-by",
    "eat from the red bowl",
    "chase {pos} own tail",
    "bring {pos} leash to the front door",
    "knead the sofa cushions",
    "howl along with the kettle",
    "roll around in the flower beds",
    "bat at the curtain tassels",
    "hide under the bed",
    "dig holes near the fence",
    "curl up in the fruit bowl",
    "carry socks around the house",
    "walk across the piano keys",
    "nap inside an empty cardboard box",
    "sprint laps around the dining table",
    "fetch the newspaper",
    "nibble on the houseplants",
    "chatter at the squirrels",
    "play with a crinkly ball",
    "demand belly rubs",
    "sleep on the warm laptop",
    "push pens off the desk",
    "splash in {pos} water dish",
    "follow the vacuum cleaner around",
    "chew on an old slipper",
    "climb to the top of the bookcase",
    "groom {pos} paws for ages",
    "dance on {pos} hind legs",
    "guard the front gate",
    "tug at the doormat",
)

#: Easy: the whole rule in one sentence. {b3} third person, {b} base form, {bg} gerund, {c} condition clause
EASY_RULES = (
    ("{E} {b3} only when {c}.", "only when"),
    ("{E} {b3}, but only if {c}.", "but only if"),
    ("Only when {c} does {E} {b}.", "only when"),
    ("{E} never {b3} unless {c}.", "unless"),
    ("{E} has one firm rule: no {bg} unless {c}.", "unless"),
    ("{E} will {b} only if {c}.", "only if"),
)
#: Hard (B.3): behaviour, condition and link sentences, never with a conditional connective
HARD_BEHAVIORS = (
    "{E} has a habit of {bg}.",
    "Every so often {E} gets the urge to {b}.",
    "{E} is known among friends for {bg}.",
)
HARD_CONDITIONS = (
    "{E} often finds {refl} {s}.",
    "{E} spends a fair share of {pos} time {s}.",
    "Life puts {E} {s} more often than you might think.",
)
#: (template, the span that identifies it in a memory)
HARD_LINKS = (
    ("It's usually in those stretches that {E}'s little ritual shows up.", "little ritual shows up"),
    ("Most of the time, that is exactly when {E}'s habit kicks in.", "habit kicks in"),
    ("Those are the moments when {E}'s quirk tends to appear.", "quirk tends to appear"),
    ("By then, {E}'s familiar routine is usually already underway.", "familiar routine is usually already underway"),
)
#: the reader recognises a link sentence by any of these spans
LINK_SPANS = tuple(span for _, span in HARD_LINKS)

QUESTIONS = (
    "{s} — would {E} {b} right now?",
    "{s}. Is {E} going to {b}?",
    "Quick question: {s}. Will {E} {b} at this point?",
    "{s}; should I expect {E} to {b}?",
)
#: questions whose situation already names the entity use its pronoun
QUESTIONS_PRONOUN = (
    "{s} — would {pr} {b} right now?",
    "{s}. Is {pr} going to {b}?",
    "{s}; should I expect {obj} to {b}?",
)

PERSON_FILLERS = (
    "{E} works as a {job} in a small coastal town.",
    "{E} grew up in {region} and still owns {pos} grandmother's {heirloom}.",
    "{Pr} shares a narrow townhouse with an old friend from school.",
    "{Pos} favourite food is {food}.",
    "Friends describe {E} as {trait} and endlessly curious.",
    "{E} drives a battered {car} that {pr} refuses to sell.",
    "{Pr} is saving up for a long trip to {destination}.",
    "{Pos} shelves are crammed with {books}.",
    "{E} has a younger brother who lives in {city}.",
    "{Pr} keeps a {keepsake} on {pos} desk at all times.",
    "{E} learned to swim late, at the age of thirty.",
    "{Pos} laugh is loud enough to turn heads in a cafe.",
    "{E} volunteers at the local library on Saturdays.",
    "{Pr} has worn the same pair of round glasses for a decade.",
    "{E} still writes everything down in a paper diary.",
    "{Pos} balcony is crowded with tomato plants in pots.",
    "{E} once spent a year teaching English abroad.",
    "{Pr} takes {pos} coffee with far too much sugar.",
)
PET_FILLERS = (
    "{E} is a {species} who lives with a family of four.",
    "{Pos} favourite toy is a {toy}.",
    "{E} was adopted from a shelter in {city}.",
    "{Pr} has one white sock on {pos} left front paw.",
    "{E} sleeps at the foot of the stairs most nights.",
    "{Pr} is terrified of the neighbour's parrot.",
    "{E} gets groomed once a month at a place downtown.",
    "{Pos} collar has a small brass bell on it.",
    "{E} weighs a little more than the vet would like.",
    "{Pr} greets every visitor at the door.",
)
FILLER_SLOTS = {
    "job": (
        "ferry mechanic",
        "piano tuner",
        "museum guide",
        "bookbinder",
        "radio presenter",
        "surveyor",
        "baker",
        "translator",
    ),
    "region": (
        "the Scottish Highlands",
        "rural Portugal",
        "a fishing village in Maine",
        "the Dutch countryside",
        "northern Chile",
    ),
    "heirloom": ("silver thimble", "pocket watch", "brass compass", "tin of buttons", "embroidered shawl"),
    "food": ("grilled sardines", "mushroom risotto", "pierogi", "spicy noodles", "apple crumble", "fish tacos"),
    "trait": ("stubborn", "gentle", "talkative", "meticulous", "absent-minded", "generous"),
    "car": ("green hatchback", "old estate car", "rusty pickup", "tiny two-seater", "camper van"),
    "destination": ("Patagonia", "Iceland", "Japan", "the Norwegian fjords", "New Zealand"),
    "books": ("detective novels", "field guides to mushrooms", "travel memoirs", "old atlases", "poetry collections"),
    "city": ("Glasgow", "Porto", "Montreal", "Adelaide", "Ghent", "Valparaiso"),
    "keepsake": ("smooth grey pebble", "tiny brass elephant", "faded photo booth strip", "chipped blue mug"),
    "toy": ("squeaky rubber duck", "knotted rope", "felt mouse", "tennis ball with the fuzz worn off"),
}
