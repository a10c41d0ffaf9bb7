"""Long-Hop: everyday actions as chain anchors, and the sentence and question forms.

An anchor is a base-form verb phrase ({pos} is the subject's possessive: "call my mom" in a
first-person chain, "call her mom" in a chain about Diego). Anchors are subjective and
ordinary (B.6), and any two of them are unrelated, so a fact cannot be guessed from
another and a distractor is never a plausible next step.
"""

from __future__ import annotations

_VERB_OBJECTS = """
water: the ferns | the tomato seedlings | the window boxes | the lemon tree | the hanging baskets | the basil plants
call: {pos} mom | {pos} grandfather | {pos} oldest friend | the bakery | {pos} sister | {pos} godmother | the vet
bake: banana bread | oat cookies | a rhubarb pie | cheese scones | a ginger cake | soda bread
clean: the bathroom mirror | the oven racks | {pos} running shoes | the fish tank | the gutters | the keyboard | the bird bath
write: a postcard | a grocery list | a poem about clouds | {pos} weekly plan | a letter to the council | a thank-you note | song lyrics
listen to: an old vinyl record | a true-crime podcast | the shipping forecast | a Bach cantata | birdsong recordings
buy: fresh flowers | a lottery ticket | a new notebook | a bag of clementines | a crossword magazine | a houseplant | cheap sunglasses
fold: the laundry | paper boats | the tea towels | origami frogs
plan: a day trip | a dinner party | next month's budget | a surprise picnic | a weekend in the mountains | a garden makeover
take: scenic photos | a long bath | a cold shower | the dog to the river | a power nap | the bus downtown | a pottery class
read: a chapter of a spy novel | the Sunday papers | old diaries | a cookbook in bed | poetry aloud | a graphic novel | the horoscopes
practise: guitar scales | a speech | yoga stretches | {pos} Spanish vocabulary | juggling | calligraphy
organize: the bookshelf | the spice drawer | {pos} desk drawers | the photo albums | the garden shed | a charity bake sale
sketch: the rooftops | {pos} coffee cup | passing strangers | the view from the window | the sleeping cat
go for: a run by the canal | a swim at the lido | a walk in the rain | a drive along the coast | a bike ride at dusk
make: a pot of soup | a fruit smoothie | a playlist | hot chocolate | a collage | friendship bracelets | lemonade
visit: the flower market | the library | {pos} neighbour | the art museum | the hardware store | the aquarium | an antique shop
repaint: the garden fence | the bathroom door | an old chair | the front steps | the mailbox
tidy: the hallway | the car | the kitchen counters | {pos} wardrobe | the shoe rack
watch: a horror film | the sunset from the roof | cooking videos | a nature documentary | old sitcom reruns | the rain from the porch | a football match
eat: a bowl of ramen | a whole pomegranate | spicy tacos | a slice of cheesecake | cold pizza for breakfast | a plate of dumplings | an apple with peanut butter
drink: a glass of iced tea | a double espresso | ginger beer | warm milk with honey | a tall glass of water | sparkling lemonade
text: {pos} brother | an old colleague | the group chat | {pos} landlord | {pos} cousin
knit: a scarf | fingerless gloves | a tea cosy | baby socks
polish: the silverware | {pos} dress shoes | the brass doorknobs | the car headlights
back up: {pos} files | the family photos | {pos} phone
update: the calendar | {pos} blog | the shopping spreadsheet | {pos} travel journal
sort: the recycling | the sock drawer | old receipts | the button jar
hum: sea shanties | film soundtracks | lullabies
order: Thai takeaway | a pizza | flowers for a friend | new seeds online | a new board game
light: a scented candle | the fire pit | the wood stove | incense
rearrange: the furniture | the fridge magnets | the bookshelves by colour
fix: the squeaky hinge | a wobbly chair | the bike chain | the leaky tap | the broken lamp
feed: the ducks | the sourdough starter | the birds on the balcony | the neighbour's cat | the goldfish
put on: a jazz record | {pos} favourite sweater | a face mask | fuzzy slippers | a cooking apron
play: chess online | the piano | a video game | cards with the neighbours | the ukulele | fetch with the dog | board games
stretch: on the living-room floor | in the garden
journal: about the day | in the car
browse: travel websites | second-hand bookshops | recipe blogs | real estate listings | old photo albums
check: the weather forecast | the bank balance | the mailbox | the tyre pressure | the train times
cook: a curry from scratch | pancakes | a Sunday roast | stuffed peppers | a big pot of chili | fried rice
vacuum: the stairs | the sofa cushions | the rugs
wash: the windows | the car | the dog | the curtains
draw: a map of the town | comic strips | a self-portrait
daydream: about moving abroad | about owning a bookshop
work on: a jigsaw puzzle | a model airplane | the quilt | a short story
reorganize: the pantry | the toolbox | the attic
dance: around the kitchen | to old disco songs
sing: in the shower | show tunes | karaoke in the car | old folk songs
bike: to the lake | to the farmers market | along the river
learn: a new card trick | a poem by heart | a new recipe | a few words of Greek
meditate: for ten minutes | on the balcony
phone: {pos} aunt | the plumber | {pos} old coach
email: {pos} old professor | the landlord | a pen pal
donate: old clothes | unused books | spare blankets
prune: the roses | the hedge | the apple tree
iron: {pos} shirts | the tablecloths
nap: on the sofa | in the hammock
shop for: new socks | houseplants | vintage records
sew: a button back on | new cushion covers
re-pot: the cactus | the orchids
wander: around the old town | through the botanical garden
light up: the barbecue
grind: fresh coffee beans
frame: an old map | a concert poster
map out: a cycling route | a garden plan
record: a voice memo | the birdsong outside
carry: a thermos to work | an umbrella everywhere | a sketchbook around
collect: sea glass on the beach | pine cones in the park | stamps from old letters
refill: the bird feeder | the water jug | {pos} fountain pen
pack: a picnic basket | snacks for the road | an overnight bag
unpack: the groceries | the dishwasher | {pos} suitcase
scrub: the kitchen floor | the barbecue grill | the garden furniture
stack: the firewood | the dishes | old magazines
bookmark: hiking trails | new recipes | concert dates
tune: the old guitar | the radio to a jazz station
rinse: the salad greens | the paintbrushes
hang up: fairy lights | new curtains | a wind chime
mend: a torn jacket | the garden net | {pos} old jeans
photograph: the sunrise | street murals | the cat
rewatch: a favourite musical | old home videos | a classic western
start: a jigsaw | a new podcast series | a sourdough loaf
finish: a crossword | the ironing | a library book
brew: a pot of mint tea | kombucha | a cafetiere of coffee
crave: salty chips | something sweet | a bowl of noodles
feel: restless | oddly calm | homesick | wide awake | sleepy | nostalgic | grumpy | hopeful
replant: the herb pots | the strawberry runners
paint: a small watercolour | {pos} nails | a birdhouse
bathe: the baby | in the sea
whistle: a marching tune | through {pos} teeth
shovel: the snow off the path | compost into the beds
hunt for: {pos} car keys | bargains online | four-leaf clovers
walk: to the bakery | around the block twice | the long way home
chop: firewood | onions for the week
measure: the living room | {pos} heart rate
clear out: the fridge | {pos} inbox | the garage
sweep: the porch | the chimney | the back yard
fill: the kettle | a hot water bottle | the bird bath with fresh water
grate: carrots for a salad | lemon zest
roast: marshmallows | a tray of vegetables | chestnuts
toast: a crumpet | some walnuts
set: the table for two | three alarms | a new reading goal
lay out: tomorrow's clothes | a jigsaw on the table
browse through: old postcards | seed catalogues
google: train timetables | cheap flights
jot down: a dream | new song ideas
turn on: the electric blanket | the dehumidifier | the porch light
switch off: the wifi router | every lamp in the house
bring: a cake to work | flowers to {pos} grandmother
borrow: a ladder | a stack of comics
lend: {pos} bike to a friend | a cookbook to the neighbour
rent: a rowing boat | a tandem bicycle
book: a massage | a table at the noodle bar | a train to the seaside
gather: wild garlic | driftwood on the shore
pick: blackberries | wildflowers for the table
decorate: the window sill | a gingerbread house
hike: up the hill behind the village | to the waterfall
stroll: along the harbour | through the cemetery
row: across the pond | on the river
skate: in the park | down the promenade
camp: in the back garden | by the lake
"""


def _anchors() -> tuple[str, ...]:
    anchors: list[str] = []
    for line in _VERB_OBJECTS.strip().splitlines():
        verb, _, objects = line.partition(":")
        anchors.extend(f"{verb.strip()} {obj.strip()}" for obj in objects.split("|"))
    return tuple(anchors)


ANCHORS = _anchors()

#: (first-person template, named-person template, span that gives the direction)
RELATIONS = (
    ("Whenever I {a}, I {b}.", "Whenever {E} {a3}, {pr} {b3}.", "whenever"),
    ("After I {a}, I usually {b}.", "After {E} {a3}, {pr} usually {b3}.", "usually"),
    ("I tend to {b} right after I {a}.", "{E} tends to {b} right after {pr} {a3}.", "right after"),
    ("Every time I {a}, I end up wanting to {b}.", "Every time {E} {a3}, {pr} ends up wanting to {b}.", "every time"),
    ("Once I {a}, I almost always {b} next.", "Once {E} {a3}, {pr} almost always {b3} next.", "almost always"),
)
#: sentences whose effect comes first
EFFECT_FIRST = ("right after",)
QUESTIONS_FIRST = (
    "When I {a}, what do I end up doing?",
    "Starting from the moment I {a}, what do I eventually end up doing?",
    "What does it lead to, in the end, when I {a}?",
)
QUESTIONS_NAMED = (
    "When {E} {a3}, what does {pr} end up doing?",
    "What does {E} eventually end up doing after {pr} {a3}?",
)
