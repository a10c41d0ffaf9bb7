"""Persona-Retrieval: the 30 persona flavours (paper B.5, Table 5) and the idiosyncratic
facts an essay embeds, each with the questions that probe it.

A slot is a kind of fact (an allergy, a treasured possession...). Its statements carry the
value, its questions name a person and ask for that kind of fact; the same question asked
about a distractor who appears nowhere must be answered with an abstention.
"""

from __future__ import annotations

from dataclasses import dataclass

FLAVOURS = (
    "a meticulous indoor gardener with strong opinions about humidity",
    "a lapsed competitive swimmer who now coaches youth weekend meets",
    "a sound engineer obsessed with vintage analog gear",
    "a part-time pastry chef who does math research on the side",
    "a long-distance hiker training for the Pacific Crest Trail",
    "a retired ER nurse who took up woodworking after retirement",
    "a beekeeper-turned-marketing-consultant who still keeps three hives",
    "an amateur astronomer who hates city light pollution",
    "a freelance translator working between Portuguese and Korean",
    "a cybersecurity researcher who collects vintage typewriters",
    "a former competitive figure skater now running a small tea shop",
    "a chef-instructor who teaches knife skills at a community college",
    "an opera singer who is also a part-time auto mechanic",
    "an architect specializing in adaptive reuse of old factories",
    "a wildlife photographer focused on owls in the Pacific Northwest",
    "a high-school chemistry teacher who restores vintage motorcycles",
    "a marathoner with a rare allergy to most stone fruits",
    "a bookbinder who designs board games on weekends",
    "a software engineer who breeds carnivorous plants",
    "a paramedic who plays cello in a community orchestra",
    "a former diplomat now running a pottery studio",
    "a cartographer obsessed with historic shipwrecks",
    "a dog trainer specializing in working breeds",
    "a forensic accountant who writes science fiction novels",
    "a glassblower with severe pollen allergies",
    "a sommelier transitioning to non-alcoholic beverage consulting",
    "a former orchestra conductor who now teaches sailing",
    "a museum conservator focused on 19th-century photographs",
    "a competitive bridge player who works as an actuary",
    "a backcountry ski guide who restores antique furniture in summer",
)


@dataclass(frozen=True)
class Slot:
    name: str
    #: statements of the fact; {v} is the value
    facts: tuple[str, ...]
    #: questions about a person ({N} is the full name)
    questions: tuple[str, ...]
    values: tuple[str, ...]


SLOTS: tuple[Slot, ...] = (
    Slot("allergy",
         ("{E} is seriously allergic to {v} and reads every label twice.",
          "{Pr} can't go anywhere near {v}; the last time ended with a trip to the emergency room."),
         ("What food should I keep away from {N}?", "Is there anything I must not serve {N} at dinner?"),
         ("peanuts", "shellfish", "kiwi", "sesame", "walnuts", "strawberries", "mustard", "celery", "mango",
          "pineapple", "buckwheat", "lentils", "cashews", "soy", "eggs")),
    Slot("morning_drink",
         ("Every morning {E} starts the day with {v}.",
          "{Pr} refuses to speak to anyone before finishing a mug of {v}."),
         ("What should I have ready for {N} to drink first thing in the morning?", "What does {N} drink to start the day?"),
         ("cardamom tea", "yerba mate", "black coffee with honey", "hot water with lemon", "matcha", "chicory coffee",
          "barley tea", "hot chocolate", "turmeric latte", "ginger tea", "Turkish coffee", "a green smoothie")),
    Slot("possession",
         ("{E}'s most treasured possession is {v} inherited from a grandparent.",
          "{Pr} carries {v} everywhere and panics whenever it goes missing."),
         ("What object does {N} treasure most?", "If {N}'s home caught fire, what would be the one thing to save?"),
         ("a dented brass compass", "a tortoiseshell fountain pen", "a faded silk scarf", "a pocket watch with a cracked face",
          "a leather-bound field journal", "a silver harmonica", "a hand-carved walking stick", "a jade pendant",
          "a Polaroid camera", "a ship in a bottle", "a tiny bronze owl", "a worn copy of Moby-Dick")),
    Slot("pet",
         ("{E} shares a flat with {v}.", "At home {E} dotes on {v}."),
         ("What kind of pet does {N} have?", "Who is waiting for {N} at home?"),
         ("a one-eyed tomcat called Admiral", "a bearded dragon named Pancake", "a pair of zebra finches",
          "an elderly greyhound named Sprout", "a tortoise called Humphrey", "a rescue ferret named Biscotti",
          "a blind hamster called Pip", "a grumpy parrot named Colonel", "three goldfish named after composers",
          "a house rabbit called Juniper", "a corn snake named Noodle", "a deaf Dalmatian called Echo")),
    Slot("sunday",
         ("Every Sunday {E} makes time for {v}.", "{E}'s Sundays are reserved for {v}, no exceptions."),
         ("How does {N} like to spend Sundays?", "What's {N}'s regular Sunday plan?"),
         ("a long swim in the lake", "the flea market by the station", "a three-hour bike ride", "a radio drama marathon",
          "a chess game in the park", "a bird count on the marshes", "an open-mic night", "a pottery class",
          "choir practice", "a hike up the ridge", "a Korean cooking lesson", "a silent-film screening")),
    Slot("refusal",
         ("{E} has a strict rule against {v}.", "{Pr} flatly refuses to consider {v}, and friends have stopped asking."),
         ("Is there anything {N} absolutely refuses to do?", "What's the one thing {N} won't ever do?"),
         ("taking elevators", "flying on weekends", "lending out books", "eating after 9 p.m.", "wearing the colour yellow",
          "driving on motorways", "checking email on holidays", "using umbrellas", "buying anything secondhand",
          "answering unknown numbers", "sitting with a back to the door", "sleeping with the window closed")),
    Slot("place",
         ("{E}'s favourite spot in the whole city is {v}.", "{E} does {pos} best thinking at {v}."),
         ("Where should I take {N} to cheer them up?", "Where does {N} go to think?"),
         ("the old lighthouse pier", "the rooftop of the public library", "a tiny noodle bar on Canal Street",
          "the botanical glasshouse", "the top of Bell Hill", "a bench by the duck pond", "the night market",
          "the observatory car park", "the reading room of the maritime museum", "a 24-hour laundrette",
          "the allotment gardens", "the tram depot cafe")),
    Slot("gift",
         ("The surest way to make {E} happy is to hand over {v}.", "Nothing delights {E} more than receiving {v}."),
         ("What would be a good gift for {N}?", "What present would {N} love?"),
         ("a bag of single-origin coffee beans", "a rare houseplant cutting", "vintage sheet music", "a box of Turkish delight",
          "hand-dyed yarn", "an old map of the city", "a jar of wildflower honey", "a set of calligraphy nibs",
          "a fossil", "tickets to the planetarium", "a sourdough starter", "a retro board game")),
    Slot("fear",
         ("{E} is terrified of {v}.", "{Pr} has been frightened of {v} since childhood and still avoids them."),
         ("What is {N} afraid of?", "Is there anything that frightens {N}?"),
         ("moths", "deep water", "clowns", "thunderstorms", "escalators", "popping balloons", "crowded trains",
          "pigeons", "heights", "the dentist", "cotton wool", "ventriloquist dummies")),
    Slot("collection",
         ("{E} collects {v} and has filled two whole shelves with them.", "{Pos} collection of {v} is the pride of the hallway."),
         ("What does {N} collect?", "What could I add to {N}'s collection?"),
         ("enamel pins from national parks", "glass fishing floats", "antique keys", "matchbooks from closed restaurants",
          "snow globes", "souvenir spoons", "vintage cameras", "seashells from every trip", "tin robots",
          "old train tickets", "typewriter ribbons", "botanical prints")),
    Slot("instrument",
         ("{E} plays {v} in a community band on Thursday nights.", "{Pr} has played {v} since the age of nine."),
         ("What instrument does {N} play?", "If I wanted to make music with {N}, what would they bring?"),
         ("the cello", "the bagpipes", "the steel drums", "the trombone", "the accordion", "the bassoon", "the harp",
          "the banjo", "the oboe", "the double bass", "the tuba", "the mandolin")),
    Slot("wednesday",
         ("{E} spends most Wednesday evenings {v}.", "Wednesday nights find {E} {v}, without fail."),
         ("What does {N} do on Wednesday evenings?", "Where can I find {N} on a Wednesday night?"),
         ("fencing", "bouldering at the climbing gym", "learning Portuguese", "playing water polo", "at a salsa class",
          "restoring a canal boat", "building model ships", "volunteering at the animal shelter", "running a book club",
          "training for a triathlon", "at the community darkroom", "practising archery")),
)

#: sentences about the person that answer none of the questions
FILLERS = (
    "{Pr} grew up in a small town by the sea and moved away at eighteen.",
    "{Pr} lives in a top-floor flat with creaky floorboards.",
    "Friends say {pr} laughs too loudly at {pos} own jokes.",
    "{Pr} cycles to work through every season.",
    "{Pr} has two older sisters and a very opinionated grandmother.",
    "{Pr} keeps meaning to learn to cook properly.",
    "{Pos} desk is buried under sticky notes and half-finished lists.",
    "{Pr} is usually the last to leave any party.",
    "{Pr} writes long, rambling emails that end with three exclamation marks.",
    "{Pos} wardrobe is mostly navy blue.",
    "{Pr} once missed a flight because of a very good book.",
    "{Pr} hums while concentrating and rarely notices it.",
    "{Pos} phone is always on two per cent battery.",
    "{Pr} prefers handwritten letters to text messages.",
)
ABSTAIN = "I don't have information about {N}."
